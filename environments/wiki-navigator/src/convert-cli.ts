#!/usr/bin/env node
/**
 * `turngym-wiki-convert`: from a Wikipedia dump to a corpus the env reads, and what that corpus yields.
 *
 *   turngym-wiki-convert <dump.xml[.gz|.bz2]> <corpus.jsonl> [--max-articles N] [--namespaces 0,14] [--bzip2 auto|process|js] [--stats]
 *   turngym-wiki-convert --stats <corpus.jsonl | store.sqlite> [--tasks <task file>]
 *   turngym-wiki-convert --store <corpus.jsonl> <store.sqlite>
 * An output ending in `.sqlite` or `.db` is an on-disk store: the dump is converted to `<output>.jsonl` first.
 *   turngym-wiki-convert --synthetic-dump <out.xml[.gz|.bz2]> --articles N [--revisions K] [--seed S]
 */
import { buildCorpusStore } from './corpus/corpus-store-builder';
import { loadCorpus } from './corpus/load-corpus';
import { convertMediaWikiFile, type Bzip2Decoder } from './corpus/mediawiki-converter';
import { isCorpusStore } from './corpus/sqlite-corpus';
import { writeSyntheticDumpFile } from './corpus/synthetic-dump';
import type { WikiCorpus } from './corpus/wiki-corpus';
import { taskSourceFor } from './tasks/task-bank';
import { readTaskFile } from './tasks/task-file';
import { countTasks, formatTaskCounts } from './tasks/task-stats';

const USAGE = [
  'usage: turngym-wiki-convert <dump.xml[.gz|.bz2]> <corpus.jsonl> [--max-articles N] [--namespaces 0,14] [--bzip2 auto|process|js] [--stats]',
  'usage: turngym-wiki-convert <dump.xml[.gz|.bz2]> <store.sqlite> [same options]   (JSONL first, then the store)',
  '       turngym-wiki-convert --stats <corpus.jsonl | store.sqlite> [--tasks <task file>]',
  '       turngym-wiki-convert --store <corpus.jsonl> <store.sqlite>',
  '       turngym-wiki-convert --synthetic-dump <out.xml[.gz|.bz2]> --articles N [--revisions K] [--seed S]',
].join('\n');

interface Arguments {
  positional: string[];
  flags: Map<string, string | true>;
}

const VALUED = new Set(['--max-articles', '--namespaces', '--bzip2', '--tasks', '--articles', '--revisions', '--seed']);
const SWITCHES = new Set(['--stats', '--store', '--synthetic-dump', '--help', '-h']);
/** Options that take a whole number, and the least each allows. */
const INTEGERS = new Map([
  ['--max-articles', 1],
  ['--articles', 1],
  ['--revisions', 1],
  ['--seed', Number.MIN_SAFE_INTEGER],
]);

/**
 * The command line, or what is wrong with it. An option it does not know is an error, not ignored: a typo
 * (`--max-article 1000`) or `--max-articles=1000` once converted a whole multi-gigabyte dump instead of 1,000
 * articles. `--flag=value` and `--flag value` are both read.
 */
function parse(argv: readonly string[]): Arguments | string {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i] as string;
    if (!argument.startsWith('-') || argument === '-') {
      positional.push(argument);
      continue;
    }
    const equals = argument.indexOf('=');
    const name = equals > 0 ? argument.slice(0, equals) : argument;
    if (VALUED.has(name)) {
      const value = equals > 0 ? argument.slice(equals + 1) : argv[++i];
      if (value === undefined) return `${name} needs a value`;
      // `--seed abc` wrote a dump from seed NaN, `--revisions 0` one revision, `--articles 2.5` two articles.
      const least = INTEGERS.get(name);
      if (least !== undefined && !(/^-?\d+$/.test(value.trim()) && Number(value) >= least))
        return `${name} needs a whole number${least > Number.MIN_SAFE_INTEGER ? ` of at least ${least}` : ''} (got "${value}")`;
      flags.set(name, value);
    } else if (SWITCHES.has(name) && equals < 0) {
      flags.set(name, true);
    } else {
      return `unknown option ${argument}`;
    }
  }
  return { positional, flags };
}

function stats(corpus: WikiCorpus, tasksPath: string | undefined): string {
  // A store's tasks are counted by SQLite: read whole, the 300,000-article store's 900,000 took gigabytes.
  const counts = tasksPath ? countTasks(readTaskFile(tasksPath, corpus)) : taskSourceFor(corpus).counts();
  return [
    `${corpus.description.name}: ${corpus.size} articles`,
    `tasks${tasksPath ? ` in ${tasksPath}` : ' generated from the corpus'} (options: questionTypes or task "race", split, minHops/maxHops):`,
    ...formatTaskCounts(counts),
    ...(counts.some((entry) => entry.split === 'train' && entry.count > 0)
      ? []
      : ['no train task: use split "test", or pose your own with options.tasks (a task file)']),
  ].join('\n');
}

/** How many articles a store left out for a title an earlier one has (`apple` after `Apple`). */
function duplicatesNote(duplicates: number): string {
  return duplicates > 0
    ? ` (${duplicates} article${duplicates === 1 ? '' : 's'} left out: the same title as an earlier one once normalised)`
    : '';
}

/** Exit codes a shell gives a process its signal ended (128 + the signal's number). */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Runs `work` with Ctrl-C and kill handled: the signal aborts it, so it removes its partial output (gigabytes of
 * JSONL on Wikipedia, a 150 MB `.building` store at 60,000 articles) instead of leaving it behind. Interrupted,
 * it writes the one line `work` rejected with and gives the exit code of that signal (130, 143).
 */
async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<{ value: T } | { code: number }> {
  const controller = new AbortController();
  let received: keyof typeof SIGNAL_EXIT | undefined;
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
    const handler = (): void => {
      received ??= name;
      controller.abort();
    };
    process.once(name, handler);
    return [name, handler] as const;
  });
  try {
    return { value: await work(controller.signal) };
  } catch (error) {
    if (!received) throw error;
    process.stderr.write(`turngym-wiki-convert: ${(error as Error).message}\n`);
    return { code: SIGNAL_EXIT[received] };
  } finally {
    for (const [name, handler] of handlers) process.off(name, handler);
  }
}

/**
 * For the command line's own test only: `<phase>:<signal>` (`tasks:SIGINT`) sends this process that signal when
 * the store build first pauses in that phase, so the test interrupts task generation for sure, not by timing.
 */
function testSignal(): ((phase: string) => void) | undefined {
  const hook = /^(articles|tasks):(SIGINT|SIGTERM)$/.exec(process.env.TURNGYM_WIKI_CONVERT_TEST_SIGNAL ?? '');
  if (!hook) return undefined;
  let sent = false;
  return (phase) => {
    if (sent || phase !== hook[1]) return;
    sent = true;
    process.kill(process.pid, hook[2]);
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parse(argv);
  if (typeof parsed === 'string') {
    process.stderr.write(`turngym-wiki-convert: ${parsed}\n${USAGE}\n`);
    return 2;
  }
  const { positional, flags } = parsed;
  const number = (flag: string): number | undefined => (flags.has(flag) ? Number(flags.get(flag)) : undefined);
  const usage = (): number => {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  };
  if (flags.has('--help') || flags.has('-h')) return usage();

  if (flags.has('--synthetic-dump')) {
    const articles = number('--articles');
    if (positional.length !== 1 || !(articles && articles >= 1)) return usage();
    const written = await writeSyntheticDumpFile(positional[0] as string, {
      articles,
      revisions: number('--revisions') ?? 1,
      seed: number('--seed') ?? 1,
    });
    process.stdout.write(
      `${positional[0]}: ${written.articles} articles, ${written.redirects} redirects, ${written.disambiguation} disambiguation pages, ${written.otherNamespaces} pages in other namespaces (${(written.bytes / 1e6).toFixed(1)} MB of XML)\n`,
    );
    return 0;
  }
  const tasks = flags.get('--tasks');
  if (flags.has('--store')) {
    if (positional.length !== 2 || !isCorpusStore(positional[1] as string)) return usage();
    const run = await interruptible((signal) =>
      buildCorpusStore(positional[0] as string, positional[1] as string, { signal, onProgress: testSignal() }),
    );
    if ('code' in run) return run.code;
    const built = run.value;
    process.stdout.write(
      `${positional[1]}: ${built.articles} articles, ${built.redirects} redirects, ${built.tasks} tasks${duplicatesNote(built.duplicates)} in ${built.seconds.toFixed(1)} s (index ${built.indexSeconds.toFixed(1)} s, tasks ${built.taskSeconds.toFixed(1)} s)\n`,
    );
    return 0;
  }
  if (flags.has('--stats') && positional.length === 1) {
    const corpus = loadCorpus({ corpus: positional[0] as string, corpusSeed: 1, articles: 2000 });
    process.stdout.write(`${stats(corpus, typeof tasks === 'string' ? tasks : undefined)}\n`);
    return 0;
  }

  const maxArticles = number('--max-articles');
  const namespaces = flags.has('--namespaces') ? String(flags.get('--namespaces')).split(',').map(Number) : undefined;
  const bzip2 = flags.get('--bzip2');
  if (
    positional.length !== 2 ||
    (maxArticles !== undefined && !(maxArticles > 0)) ||
    namespaces?.some((ns) => !Number.isInteger(ns)) ||
    (bzip2 !== undefined && bzip2 !== 'auto' && bzip2 !== 'process' && bzip2 !== 'js')
  ) {
    return usage();
  }
  const [input, target] = positional as [string, string];
  const store = isCorpusStore(target);
  const output = store ? `${target}.jsonl` : target;
  const started = Date.now();
  // Ctrl-C or a kill while converting: the partial JSONL (gigabytes on Wikipedia) is removed, not left behind.
  const conversion = await interruptible((signal) =>
    convertMediaWikiFile(input, output, {
      ...(maxArticles ? { maxArticles } : {}),
      ...(namespaces ? { namespaces } : {}),
      ...(bzip2 ? { bzip2: bzip2 as Bzip2Decoder } : {}),
      signal,
    }),
  );
  if ('code' in conversion) return conversion.code;
  const converted = conversion.value;
  process.stdout.write(
    `${output}: ${converted.articles} articles, ${converted.redirects} redirects (${converted.skipped} pages skipped) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  // Pages cut down or left out to bound the time one page takes: counted and named, never silently.
  if (converted.degraded || converted.failed)
    process.stdout.write(
      `${input}: ${converted.degraded ?? 0} pages converted with part of their wikitext left out, ${converted.failed ?? 0} pages not converted${
        converted.notes?.length ? `; the first:\n${converted.notes.map((note) => `  ${note}`).join('\n')}` : ''
      }\n`,
    );
  if (converted.caseSensitive)
    process.stdout.write(
      `${input}: the wiki's titles are case-sensitive; a corpus upper-cases their first letter, so titles that differ only there ("apple", "Apple") become one: the first one is kept\n`,
    );
  if (store) {
    // Interrupted here, the JSONL is whole and kept: `--store` builds the store from it without converting again.
    const run = await interruptible((signal) => buildCorpusStore(output, target, { signal, onProgress: testSignal() }));
    if ('code' in run) return run.code;
    const built = run.value;
    process.stdout.write(
      `${target}: ${built.articles} articles, ${built.tasks} tasks${duplicatesNote(built.duplicates)} in ${built.seconds.toFixed(1)} s\n`,
    );
  }
  if (flags.has('--stats')) {
    const corpus = loadCorpus({ corpus: target, corpusSeed: 1, articles: 2000 });
    process.stdout.write(`${stats(corpus, typeof tasks === 'string' ? tasks : undefined)}\n`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`turngym-wiki-convert: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
