import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The package as built (dist/): the child process below reads with it, as `turngym report` does.
const REPORT_PACKAGE = join(__dirname, '..', 'dist', 'index.js');

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'turngym-report-metrics-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('readMetrics on a long run', () => {
  // A report reads every line of every run it is given; a long run logs 10^5 lines of some 30 metrics, and a
  // directory holds several seeds. Rows kept in V8's dictionary mode took 2.5 times the memory: 3·10^4 such
  // lines needed over 80 MB of heap, and a few long seeds ran `turngym report` out of memory.
  it('keeps 3·10^4 lines of 30 metrics within a 72 MB heap', () => {
    const file = join(root, 'metrics.jsonl');
    const lines: string[] = [];
    for (let iteration = 0; iteration < 30_000; iteration++) {
      const row: Record<string, number> = { iteration, global_step: 8 * (iteration + 1) };
      for (let metric = 0; metric < 30; metric++) {
        row[`charts/metric_${metric}`] = Math.round(Math.sin(iteration / 100 + metric) * 1e4) / 1e4;
      }
      lines.push(JSON.stringify(row));
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
    const script =
      `require(${JSON.stringify(REPORT_PACKAGE)}).readMetrics(${JSON.stringify(file)})` +
      `.then((rows) => process.stdout.write(String(rows.length) + ' ' + rows[29999].values['charts/metric_29']))`;
    const output = execFileSync(process.execPath, ['--max-old-space-size=72', '-e', script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(output).toBe(`30000 ${Math.round(Math.sin(29_999 / 100 + 29) * 1e4) / 1e4}`);
  });
});
