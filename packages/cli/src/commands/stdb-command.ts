import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ScoredEdge, Stdb } from '@turngym/trainer-ccapo';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { UsageError } from '../cli-errors';
import { writeLine } from '../cli-io';
import { formatTable } from '../format-table';
import { loadTrainer } from '../optional-modules';
import { parsePositiveInteger } from '../parse-arguments';

type CcapoModule = ReturnType<typeof loadTrainer<'ccapo'>>;

interface JsonOption {
  json?: boolean;
}

interface TopEdgesOptions extends JsonOption {
  limit: number;
  minVisits: number;
}

/**
 * The score's constants of the run that wrote the store (its `run.json` beside `stdb.sqlite`), so the scores
 * shown are the ones the trainer used; the defaults for a store found elsewhere.
 */
function runScoreParameters(ccapo: CcapoModule, db: string) {
  const runJson = join(dirname(db), 'run.json');
  const defaults = ccapo.EDGE_SCORE_DEFAULTS;
  if (!existsSync(runJson)) return defaults;
  try {
    const args = (JSON.parse(readFileSync(runJson, 'utf8')) as { args?: Record<string, unknown> }).args ?? {};
    const number = (key: string, fallback: number) =>
      typeof args[key] === 'number' ? (args[key] as number) : fallback;
    return {
      priorCount: number('priorCount', defaults.priorCount),
      criticalityWeight: number('criticalityWeight', defaults.criticalityWeight),
      distanceExponent: number('distanceExponent', defaults.distanceExponent),
    };
  } catch {
    return defaults;
  }
}

/** Opens the store read-only (a running trainer keeps writing: WAL lets both go on), runs `work`, closes it. */
function withStdb<T>(db: string, work: (stdb: Stdb, ccapo: CcapoModule) => T): T {
  const ccapo = loadTrainer('ccapo');
  let stdb: Stdb;
  try {
    stdb = ccapo.Stdb.open(db, { readonly: true, score: runScoreParameters(ccapo, db) });
  } catch (error) {
    if (error instanceof ccapo.StdbError) throw new UsageError(error.message);
    throw error;
  }
  try {
    return work(stdb, ccapo);
  } finally {
    stdb.close();
  }
}

const fixed = (value: number | null, digits = 3): string => (value === null ? '-' : value.toFixed(digits));

/**
 * Each edge with the factors of its score, so a user can see why a step was credited: Q = I·(1 + λC)·D squashed,
 * V̄ of its anchor, and Q − V̄, the raw micro advantage of taking this edge there.
 */
function edgeRows(ccapo: CcapoModule, stdb: Stdb, edges: readonly ScoredEdge[], withAnchor: boolean): string[][] {
  const global = stdb.globals();
  return edges.map((edge) => [
    ...(withAnchor ? [edge.anchor] : []),
    edge.fingerprint,
    String(edge.total),
    String(edge.successes),
    fixed(edge.distanceToGoal, 1),
    fixed(ccapo.importance(edge, stdb.score.priorCount)),
    fixed(ccapo.criticality(edge, global)),
    fixed(ccapo.distanceDecay(edge, stdb.score.distanceExponent)),
    fixed(edge.score),
    fixed(edge.baseline),
    edge.baseline === null ? '-' : fixed(edge.score - edge.baseline),
  ]);
}

const EDGE_HEADER = ['fingerprint', 'N_total', 'N_succ', 'd_goal', 'I', 'C', 'D', 'Q', 'V̄(anchor)', 'Q−V̄'];

/**
 * `turngym stdb stats|top-edges|anchor`: reads a CCAPO run's history store (`<runDir>/stdb.sqlite`, or a
 * checkpoint's copy) and shows what it has learnt, and why a step there gets the micro advantage it gets.
 */
export function registerStdbCommand(program: Command, context: CliContext): void {
  const stdb = program
    .command('stdb')
    .description("inspect a CCAPO history store (<runDir>/stdb.sqlite): stats, top edges, an anchor's edges");
  const print = (text: string) => writeLine(context.io.stdout, text);

  stdb
    .command('stats')
    .description('episodes, successes, edges, anchors and baselines in the store')
    .argument('<db>', 'the store, e.g. runs/ccapo/stdb.sqlite')
    .option('--json', 'print the counts as JSON')
    .action((db: string, options: JsonOption) =>
      withStdb(db, (store) => {
        const summary = store.summary();
        const stats: Record<string, number> = {
          ...summary,
          successRate: summary.episodes > 0 ? summary.successes / summary.episodes : 0,
          meanVisitsPerEdge: summary.edges > 0 ? summary.edgeVisits / summary.edges : 0,
          bytes: statSync(db).size,
        };
        if (options.json) return print(JSON.stringify(stats));
        for (const [key, value] of Object.entries(stats)) {
          print(`${key.padEnd(18)} ${Number.isInteger(value) ? String(value) : value.toFixed(3)}`);
        }
      }),
    );

  stdb
    .command('top-edges')
    .description('the best-scored edges (anchor → fingerprint) with the factors of their score')
    .argument('<db>', 'the store')
    .option('--limit <n>', 'how many edges', parsePositiveInteger, 20)
    .option('--min-visits <n>', 'only edges visited at least this many times', parsePositiveInteger, 1)
    .option('--json', 'print the edges as JSON')
    .action((db: string, options: TopEdgesOptions) =>
      withStdb(db, (store, ccapo) => {
        const edges = store.topEdges(options.limit, options.minVisits);
        if (options.json) return print(JSON.stringify(edges));
        print(formatTable(['anchor', ...EDGE_HEADER], edgeRows(ccapo, store, edges, true)));
      }),
    );

  stdb
    .command('anchor')
    .description("an anchor's edges, best first, against its baseline V̄: why each action there is credited")
    .argument('<anchor>', 'an anchor key `location|previous fingerprint` (as top-edges prints it), or a location')
    .argument('<db>', 'the store')
    .option('--json', 'print the edges as JSON')
    .action((anchor: string, db: string, options: JsonOption) =>
      withStdb(db, (store, ccapo) => {
        const edges = store.anchorEdges(anchor);
        if (options.json) return print(JSON.stringify(edges));
        if (edges.length === 0) {
          throw new UsageError(`No edges at anchor "${anchor}" in ${db}: see \`turngym stdb top-edges ${db}\`.`);
        }
        const anchors = new Set(edges.map((edge) => edge.anchor));
        print(formatTable(['anchor', ...EDGE_HEADER], edgeRows(ccapo, store, edges, true)));
        if (anchors.size === 1) {
          print('');
          print(`A step here is credited Q − V̄ before the batch z-score (0 on a loop; Q = 0 for an unseen action).`);
        }
      }),
    );
}
