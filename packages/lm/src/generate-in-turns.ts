import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Generation, GenerationOptions, GenerationRequest } from './generation';
import { GenerationBatch } from './generation-batch';
import type { LanguageModel } from './language-model';

/**
 * `model.generate` for a server: one decoder pass at a time, with the event loop let in between, so the process
 * answers other requests (`/v1/models`, a short completion, which interleave pass by pass) while a long one decodes,
 * and stops — its batch freed — at the first pass after `signal` aborts (a client that hung up, a server closing).
 * The draws are `generate`'s (GenerationBatch's contract: same seeded generators, stops and limits); rejects with
 * the signal's reason when aborted, and with `generate`'s errors for a request it refuses.
 */
export async function generateInTurns(
  model: LanguageModel,
  requests: readonly GenerationRequest[],
  options: Partial<GenerationOptions>,
  signal?: AbortSignal,
): Promise<Generation[]> {
  signal?.throwIfAborted();
  const batch = new GenerationBatch(model, options);
  try {
    // A fresh batch numbers its rows 0, 1, …: the tickets are the requests' indices.
    for (const request of requests) batch.add(request);
    const results: Generation[] = [];
    let left = requests.length;
    while (left > 0) {
      for (const { ticket, generation } of batch.step()) {
        results[ticket] = generation;
        left -= 1;
      }
      if (left === 0) break;
      await nextTurn();
      signal?.throwIfAborted();
    }
    return results;
  } finally {
    batch.dispose();
  }
}
