import { relative } from 'node:path';
import { planActPrefixReuse } from './plan-act-prefix-reuse';

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** `--only plan-act`: Plan/Act's KV-cache prefix reuse per episode (issue 26 item 3; ALGORITHMS.md §4). */
export const planActSection = {
  name: 'plan-act',
  slow: true,
  title:
    'Plan/Act prefix reuse: KV-cache hits and context tokens saved per episode, shared parameters vs an adapter per role (tiny-1m warm starts, wasm)',
  async run(): Promise<string[]> {
    const { rows, checkpoints } = await planActPrefixReuse();
    return [
      'Every role call carries the same system prompt and history, so each call continues a KV cache and runs only',
      'what was written since (ALGORITHMS.md §4). A **hit** is a call that continued a cache; **saved** the context',
      'tokens read from it instead of run again; **run** the tokens actually run; saved share = saved / (run + saved),',
      'the work a server without prefix reuse would have added. Shared parameters keep one cache for both roles;',
      'an adapter per role keeps one per adapter (keys and values under one adapter are wrong under another), so a',
      "role re-runs the other role's turns since it last spoke. 4 tasks × 4 rollouts, temperature 1, seed 3; fresh",
      `LoRA adapters (B = 0) on ${checkpoints.map((checkpoint) => relative(process.cwd(), checkpoint)).join(' and ')}.`,
      '',
      '| env | rollouts | episodes | calls/episode | hit rate | saved tokens/episode | run tokens/episode | saved share | seconds |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        (row) =>
          `| ${row.env} | ${row.mode} | ${row.episodes} | ${row.callsPerEpisode.toFixed(1)} | ${(100 * row.hitRate).toFixed(0)}% | ${fmt(row.savedPerEpisode)} | ${fmt(row.runPerEpisode)} | ${(100 * row.savedShare).toFixed(0)}% | ${row.seconds.toFixed(1)} |`,
      ),
    ];
  },
};
