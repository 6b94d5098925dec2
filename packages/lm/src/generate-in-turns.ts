import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Generation, GenerationOptions, GenerationRequest } from './generation';
import { GenerationBatch } from './generation-batch';
import type { GenerationQueue } from './generation-queue';
import type { LanguageModel } from './language-model';
import type { TokenLogprob } from './top-logprobs';

/** A request's tokens so far, after a pass (`generation` set once it has finished). */
export interface RowProgress {
  readonly tokens: readonly number[];
  readonly logprobs: readonly number[];
  /** With the option `topLogprobs`: the likeliest alternatives at each token. */
  readonly topLogprobs?: readonly (readonly TokenLogprob[])[];
  readonly generation?: Generation;
}

export interface GenerateInTurnsOptions {
  /** Stops the generation at its next pass (a client that hung up, a server closing), or takes it out of the queue. */
  readonly signal?: AbortSignal;
  /** Waits here for a free generation first (a server's bound on the batches decoding at once). */
  readonly queue?: GenerationQueue;
  /** Called after each pass for every request that drew a token in it, by its index in `requests` (streaming). */
  readonly onProgress?: (index: number, progress: RowProgress) => void;
}

/**
 * `model.generate` for a server: one decoder pass at a time, with the event loop let in between, so the process
 * answers other requests (`/v1/models`, a short completion, which interleave pass by pass) while a long one decodes,
 * and stops — its batch freed — at the first pass after `signal` aborts (a client that hung up, a server closing).
 * The draws are `generate`'s (GenerationBatch's contract: same seeded generators, stops and limits); rejects with
 * the signal's reason when aborted, with `generate`'s errors for a request it refuses, and with the queue's 429
 * when the queue is full.
 */
export async function generateInTurns(
  model: LanguageModel,
  requests: readonly GenerationRequest[],
  options: Partial<GenerationOptions>,
  { signal, queue, onProgress }: GenerateInTurnsOptions = {},
): Promise<Generation[]> {
  signal?.throwIfAborted();
  const release = queue ? await queue.acquire(signal) : undefined;
  try {
    const batch = new GenerationBatch(model, options);
    try {
      // A fresh batch numbers its rows 0, 1, …: the tickets are the requests' indices.
      for (const request of requests) batch.add(request);
      const results: Generation[] = [];
      let left = requests.length;
      const drawn = requests.map(() => 0);
      while (left > 0) {
        for (const { ticket, generation } of batch.step()) {
          results[ticket] = generation;
          left -= 1;
          onProgress?.(ticket, {
            tokens: generation.tokens,
            logprobs: generation.logprobs,
            ...(generation.topLogprobs ? { topLogprobs: generation.topLogprobs } : {}),
            generation,
          });
        }
        if (onProgress) {
          for (const row of batch.inFlight()) {
            if (row.tokens.length === drawn[row.ticket]) continue;
            drawn[row.ticket] = row.tokens.length;
            onProgress(row.ticket, {
              tokens: row.tokens,
              logprobs: row.logprobs,
              ...(row.topLogprobs ? { topLogprobs: row.topLogprobs } : {}),
            });
          }
        }
        if (left === 0) break;
        await nextTurn();
        signal?.throwIfAborted();
      }
      return results;
    } finally {
      batch.dispose();
    }
  } finally {
    release?.();
  }
}
