import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFakeRun } from './__fixtures__/fake-runs';
import { calibrationBins, CRITIC_CALIBRATION_FILE, explainedVarianceOf } from './critic-calibration';
import { buildReportData, renderReportHtml } from './render-report';
import { InvalidRunError } from './report-errors';
import { readRun } from './run-directory';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'turngym-report-calibration-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const READ = { rolloutIterations: 0, rolloutGroups: 0 };

describe('critic calibration', () => {
  it('bins states by predicted V into equal-count bins, lowest first, with the mean return of each', () => {
    // V bunched in [0.2, 0.3) except one state: equal widths would put 9 of 10 states in one bin.
    const pairs: [number, number][] = [
      [0.2, 0],
      [0.21, 0],
      [0.22, 0],
      [0.23, 1],
      [0.24, 0],
      [0.25, 1],
      [0.26, 1],
      [0.27, 1],
      [0.28, 1],
      [0.9, 1],
    ];
    const bins = calibrationBins([...pairs].reverse(), 5);
    expect(bins.map((bin) => bin.states)).toEqual([2, 2, 2, 2, 2]);
    expect(bins.map((bin) => bin.meanReturn)).toEqual([0, 0.5, 0.5, 1, 1]);
    expect(bins[0]!.meanValue).toBeCloseTo(0.205, 10);
    expect(bins[4]!.meanValue).toBeCloseTo(0.59, 10);
    // Standard error of the mean return: sample std / √n.
    expect(bins[1]!.returnError).toBeCloseTo(Math.sqrt(0.5 / 2), 10);
    expect(bins[0]!.returnError).toBe(0);
    // Fewer states than bins: one bin per state.
    expect(calibrationBins(pairs.slice(0, 3), 10)).toHaveLength(3);
  });

  it('computes explained variance as the trainers do: 1 − Var(R − V)/Var(R), null when R is constant', () => {
    expect(
      explainedVarianceOf([
        [0, 0],
        [1, 1],
      ]),
    ).toBe(1);
    expect(
      explainedVarianceOf([
        [0.5, 0],
        [0.5, 1],
      ]),
    ).toBe(0);
    // A constant offset is not penalised (variance of the residual), a wrong ranking is.
    expect(
      explainedVarianceOf([
        [0.2, 0],
        [1.2, 1],
      ]),
    ).toBe(1);
    expect(
      explainedVarianceOf([
        [1, 0],
        [0, 1],
      ]),
    ).toBe(-3);
    expect(
      explainedVarianceOf([
        [0.3, 1],
        [0.7, 1],
      ]),
    ).toBeNull();
  });

  it('reads critic-calibration.json from a run directory into the page data and its section', async () => {
    const dir = join(root, 'self-ac-s1');
    writeFakeRun({ dir, algorithm: 'self-ac', seed: 1, iterations: 2, groups: 1, tree: false });
    const plain = join(root, 'grpo-s1');
    writeFakeRun({ dir: plain, algorithm: 'grpo', seed: 1, iterations: 2, groups: 1, tree: false });
    writeFileSync(
      join(dir, CRITIC_CALIBRATION_FILE),
      JSON.stringify({
        split: 'test',
        episodes: 2,
        source: 'critic-probe.js --steps 2',
        pairs: [
          [0.1, 0],
          [0.2, 0],
          [0.8, 1],
          [0.9, 1],
        ],
      }),
    );
    const runs = [
      await readRun({ dir, name: 'self-ac-s1' }, READ),
      await readRun({ dir: plain, name: 'grpo-s1' }, READ),
    ];
    expect(runs[1]!.calibration).toBeNull();
    const data = buildReportData(runs);
    expect(data.calibrations).toHaveLength(1);
    const [calibration] = data.calibrations;
    expect(data.runs[calibration!.run]!.name).toBe('self-ac-s1');
    expect(calibration).toMatchObject({ split: 'test', episodes: 2, states: 4, source: 'critic-probe.js --steps 2' });
    expect(calibration!.explainedVariance).toBeCloseTo(1 - 0.025 / 0.25, 10); // residuals ∓0.1, ∓0.2 around 0
    expect(renderReportHtml(data)).toContain('<h2>Critic calibration</h2>');
    // Without any calibration file the page has no such section.
    expect(renderReportHtml(buildReportData([runs[1]!]))).not.toContain('Critic calibration');
  });

  it('names the file of a malformed calibration', async () => {
    const dir = join(root, 'self-ac-s1');
    writeFakeRun({ dir, algorithm: 'self-ac', seed: 1, iterations: 1, groups: 1, tree: false });
    const file = join(dir, CRITIC_CALIBRATION_FILE);
    for (const text of ['{', JSON.stringify({ split: 'test', pairs: [[0.1]] }), JSON.stringify({ pairs: [[0, 1]] })]) {
      writeFileSync(file, text);
      const error = await readRun({ dir, name: 'self-ac-s1' }, READ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidRunError);
      expect((error as Error).message).toContain(file);
    }
  });
});
