import type { SeededRng } from '@turngym/core';
import type { Generation } from '../generation';
import type { KvCache } from '../kv-cache';
import type { LanguageModel } from '../language-model';
import { sampleToken, type SamplingSettings } from '../sampling';
import { topLogprobs, type TokenLogprob } from '../top-logprobs';

/** One row's sampling so far: its generator, its token limit, what it drew and, once a stop sequence cut it, its text. */
export interface RowDraw {
  readonly rng: SeededRng;
  readonly budget: number;
  readonly tokens: number[];
  readonly logprobs: number[];
  /** With `topLogprobs` asked for: the likeliest alternatives at each drawn token, as `topLogprobs` lists them. */
  readonly topLogprobs?: TokenLogprob[][];
  /** With a repetition penalty: the row's prompt, whose tokens it penalises as well as those drawn. */
  readonly prompt?: readonly number[];
  text: string;
}

/** Whether the settings penalise repeats: only then does a row keep its prompt for the sampler. */
export function repeatsPenalised(settings: SamplingSettings): boolean {
  const penalty = settings.repetitionPenalty;
  return penalty !== undefined && penalty !== null && penalty !== 1;
}

/** How a row's generation ends: the stop token ids (`stopIds`) and stop sequences (`stops`). */
export interface RowStops {
  readonly stopIds: ReadonlySet<number>;
  readonly stops: readonly string[];
}

/**
 * The row's next step from the logits after its last token: `length` when its budget is spent (nothing drawn),
 * else a token drawn from `rng`, then `stop` (a stop token, or a stop sequence in the text, which is cut before
 * it), `length` (the budget reached) or `continue`. Shared by `generate` and `GenerationBatch`, so a row draws the
 * same tokens whichever runs it.
 */
export function drawToken(
  model: LanguageModel,
  logits: Float32Array,
  settings: SamplingSettings & { readonly topLogprobs?: number | null },
  row: RowDraw,
  { stopIds, stops }: RowStops,
): 'continue' | 'stop' | 'length' {
  if (row.budget <= 0) return 'length';
  const seen = row.prompt ? [...row.prompt, ...row.tokens] : undefined;
  const { token, logprob } = sampleToken(logits, settings, row.rng, seen);
  row.tokens.push(token);
  row.logprobs.push(logprob);
  // From the logits the token was drawn from, before the next pass replaces them: only `count` entries are kept.
  if (row.topLogprobs) row.topLogprobs.push(topLogprobs(logits, settings.topLogprobs ?? 0));
  if (stopIds.has(token)) return 'stop';
  if (stops.length > 0) {
    const text = model.tokenizer.decode(row.tokens);
    const hit = stops.map((stop) => text.indexOf(stop)).filter((index) => index >= 0);
    if (hit.length > 0) {
      row.text = text.slice(0, Math.min(...hit));
      return 'stop';
    }
  }
  return row.tokens.length >= row.budget ? 'length' : 'continue';
}

/** The finished row as a `Generation`: its text without a stop token, or cut before a stop sequence. */
export function rowGeneration(
  model: LanguageModel,
  row: RowDraw,
  promptTokens: number,
  finish: 'stop' | 'length' | null,
  stopIds: ReadonlySet<number>,
  cache: KvCache | undefined,
  promptLogits: Float32Array | undefined,
): Generation {
  const { tokens } = row;
  const endsWithStopToken = tokens.length > 0 && stopIds.has(tokens.at(-1)!);
  const text =
    finish === 'stop' && !endsWithStopToken
      ? row.text
      : model.tokenizer.decode(endsWithStopToken ? tokens.slice(0, -1) : tokens);
  return {
    tokens,
    logprobs: row.logprobs,
    ...(row.topLogprobs ? { topLogprobs: row.topLogprobs } : {}),
    text,
    finishReason: finish ?? 'length',
    promptTokens,
    ...(cache ? { cache } : {}),
    ...(promptLogits ? { promptLogits } : {}),
  };
}
