import { Writable } from 'node:stream';
import { InvalidOptionsError } from '@turngym/core';
import { formatDuration, formatMetric, TrainingProgress } from './training-progress';

/** A stderr stand-in that records what is written. */
function captureStream(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  }) as Writable & { isTTY: boolean; text: () => string };
  stream.isTTY = isTTY;
  stream.text = () => chunks.join('');
  return stream;
}

const row = (iteration: number) => ({
  iteration,
  global_step: iteration * 8,
  'charts/episodic_return': 0.5 + iteration / 100,
  'charts/success_rate': 0.25,
  'charts/tokens_per_second': 851.4,
});

describe('TrainingProgress', () => {
  it('without a terminal prints one plain line every logEvery iterations and after the last', () => {
    const stream = captureStream(false);
    let clock = 0;
    const progress = new TrainingProgress({ total: 7, logEvery: 3 }, { stream, now: () => clock });
    for (let iteration = 0; iteration < 7; iteration++) {
      clock += 2000;
      progress.update(iteration, row(iteration));
    }
    progress.stop();
    expect(stream.text().split('\n')).toEqual([
      'train 3/7 | 6s | eta 8s | return 0.52 | success 0.25 | tok/s 851',
      'train 6/7 | 12s | eta 2s | return 0.55 | success 0.25 | tok/s 851',
      'train 7/7 | 14s | eta 0s | return 0.56 | success 0.25 | tok/s 851',
      '',
    ]);
  });

  it('a resumed run counts from its first iteration, and shows the metrics it is asked to', () => {
    const stream = captureStream(false);
    let clock = 0;
    const progress = new TrainingProgress(
      { total: 10, start: 6, logEvery: 2, label: 'grpo', show: { kl: 'losses/approx_kl' } },
      { stream, now: () => clock },
    );
    clock += 5000;
    progress.update(6, { 'losses/approx_kl': 0.00123 });
    clock += 5000;
    progress.update(7, { 'losses/approx_kl': 0.00456 });
    progress.stop();
    expect(stream.text()).toBe('grpo 8/10 | 10s | eta 10s | kl 0.00456\n');
  });

  it('on a terminal draws a bar with iteration/total and the live metrics', () => {
    const stream = captureStream(true);
    const progress = new TrainingProgress({ total: 4 }, { stream });
    for (let iteration = 0; iteration < 4; iteration++) progress.update(iteration, row(iteration));
    progress.stop();
    progress.stop();
    const text = stream.text();
    expect(text).toContain('4/4');
    expect(text).toContain('return 0.53 | success 0.25 | tok/s 851');
    expect(text).toContain('\u001b['); // drawn with terminal control codes, unlike the plain lines
  });

  it('quiet prints nothing, on a terminal or not', () => {
    for (const isTTY of [true, false]) {
      const stream = captureStream(isTTY);
      const progress = new TrainingProgress({ total: 2, quiet: true, logEvery: 1 }, { stream });
      progress.update(0, row(0));
      progress.update(1, row(1));
      progress.stop();
      expect(stream.text()).toBe('');
    }
  });

  it('checks its options', () => {
    expect(() => new TrainingProgress({ total: 5, logEvery: 0 })).toThrow(InvalidOptionsError);
    expect(() => new TrainingProgress({ total: 5, start: 6 })).toThrow(/start 6 is past total 5/);
  });

  it('formats metrics and durations for one line', () => {
    expect([0.123456, 12.3456, 851.4, -0.5, 1e-7].map(formatMetric)).toEqual(['0.123', '12.3', '851', '-0.5', '1e-7']);
    expect([5, 187, 7500].map(formatDuration)).toEqual(['5s', '3m07s', '2h05m']);
  });
});
