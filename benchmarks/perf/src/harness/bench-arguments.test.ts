import { checkSectionNames, formatHelp, parseBenchArguments } from './bench-arguments';
import { BenchArgumentError } from './bench-error';

describe('parseBenchArguments', () => {
  it('defaults: 3 s per measurement, one run, default sections, no files', () => {
    expect(parseBenchArguments([])).toEqual({
      help: false,
      durationMs: 3000,
      durationGiven: false,
      only: undefined,
      runs: 1,
      write: undefined,
      json: undefined,
      compare: undefined,
      threshold: 0.2,
    });
  });

  it('reads a comma-separated --only, --runs and --write with its JSON beside it', () => {
    const args = parseBenchArguments(['--only', 'wiki, sandbox', '--runs', '3', '--write', 'docs/benchmarks/perf.md']);
    expect(args.only).toEqual(['wiki', 'sandbox']);
    expect(args.runs).toBe(3);
    expect(args.json).toBe('docs/benchmarks/perf.json');
  });

  it('leaves section flags to the sections and sees --help anywhere', () => {
    const args = parseBenchArguments(['--only', 'rollouts', '--math-checkpoint', 'runs/math/sft', '--help']);
    expect(args.help).toBe(true);
    expect(args.only).toEqual(['rollouts']);
  });

  it('a --compare writes no JSON unless --json names one', () => {
    expect(parseBenchArguments(['--compare', 'docs/benchmarks/perf.json']).json).toBeUndefined();
    expect(parseBenchArguments(['--compare', 'a.json', '--json', 'b.json']).json).toBe('b.json');
  });

  it.each([
    [['--runs', '0'], '--runs needs a positive whole number, got "0"'],
    [['--runs', '1.5'], '--runs needs a positive whole number'],
    [['--duration', 'fast'], '--duration needs a positive number, got "fast"'],
    [['--only'], '--only needs a value'],
    [['--compare', '--only', 'wiki'], '--compare needs a value'],
  ])('rejects %j naming the flag', (argv, message) => {
    expect(() => parseBenchArguments(argv)).toThrow(BenchArgumentError);
    expect(() => parseBenchArguments(argv)).toThrow(message);
  });
});

describe('checkSectionNames', () => {
  it('names an unknown section and lists the known ones', () => {
    expect(() => checkSectionNames(['wiki', 'wikki'], ['wiki', 'sandbox'])).toThrow(
      '--only: no section "wikki"; the sections are wiki, sandbox',
    );
    expect(() => checkSectionNames(['sandbox'], ['wiki', 'sandbox'])).not.toThrow();
  });
});

describe('formatHelp', () => {
  it('lists every harness flag and every section, slow ones marked', () => {
    const help = formatHelp([
      { name: 'wiki', title: 'Wiki navigator' },
      { name: 'rollouts', title: 'Rollouts', slow: true },
    ]);
    for (const flag of ['--duration', '--only', '--runs', '--write', '--json', '--compare', '--threshold', '--help'])
      expect(help).toContain(flag);
    expect(help).toMatch(/^ {2}wiki +Wiki navigator$/m);
    expect(help).toMatch(/^ {2}rollouts \(slow\) +Rollouts$/m);
  });
});
