import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EPISODE_RECORD_SCHEMA_ID, JsonlRecordSink, readEpisodeRecords, type EpisodeRecord } from './episode-record';
import { NotEpisodeFileError } from './errors';

const record = (seed: number): EpisodeRecord => ({
  schema: EPISODE_RECORD_SCHEMA_ID,
  episodeId: `test#${seed}`,
  envId: 'test/env-v1',
  envVersion: null,
  seed,
  resetOptions: null,
  agent: null,
  startedAt: new Date(0).toISOString(),
  instructions: null,
  initialObservation: 'start',
  steps: [],
  turns: 0,
  totalReward: 0,
  success: false,
  terminated: false,
  truncated: false,
  complete: false,
  cost: { toolCalls: 0, llmTokens: 0, wallMs: 0 },
  forkOf: null,
});

describe('JsonlRecordSink', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'turngym-record-sink-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('creates an absent file and appends to an episode file', () => {
    const path = join(directory, 'nested', 'records.jsonl');
    new JsonlRecordSink(path).write(record(1));
    new JsonlRecordSink(path).write(record(2));
    expect(readEpisodeRecords(path).map((each) => each.seed)).toEqual([1, 2]);
  });

  it('refuses an existing file that is not an episode file, leaving it untouched', () => {
    const long = `${JSON.stringify({ ...record(3), schema: 'other/v1' })}${' '.repeat(200_000)}\n`;
    for (const content of ['name,score\nada,3\n', '{"rows": []}\n', long]) {
      const path = join(directory, 'data.jsonl');
      writeFileSync(path, content);
      expect(() => new JsonlRecordSink(path)).toThrow(NotEpisodeFileError);
      expect(() => new JsonlRecordSink(path)).toThrow(/data\.jsonl exists and is not a TurnGym episode file/);
      expect(readFileSync(path, 'utf8')).toBe(content);
    }
  });

  // `turngym run --out` killed mid-append leaves half a record without its newline: the next run's first record
  // was glued onto it, lost, and the file could no longer be read at all.
  it('cuts a record torn by a kill before appending, and ends a whole last record that lacks its newline', () => {
    const path = join(directory, 'records.jsonl');
    const torn = JSON.stringify(record(2)).slice(0, 60);
    writeFileSync(path, `${JSON.stringify(record(1))}\n${torn}`);
    new JsonlRecordSink(path).write(record(3));
    expect(readEpisodeRecords(path).map((each) => each.seed)).toEqual([1, 3]);

    writeFileSync(path, `${JSON.stringify(record(1))}\n${JSON.stringify(record(2))}`);
    new JsonlRecordSink(path).write(record(3));
    expect(readEpisodeRecords(path).map((each) => each.seed)).toEqual([1, 2, 3]);
  });

  // A run killed mid-write leaves a torn last line; `turngym report` skipped it while this reader refused the file.
  it('reads a file whose last line is torn, skipping that line with a warning naming file:line', () => {
    const path = join(directory, 'records.jsonl');
    writeFileSync(path, `${JSON.stringify(record(1))}\n${JSON.stringify(record(2)).slice(0, 60)}`);
    const warnings: string[] = [];
    expect(readEpisodeRecords(path, (message) => warnings.push(message)).map((each) => each.seed)).toEqual([1]);
    expect(warnings).toEqual([`${path}:2 is a record cut short (a run killed while writing it); skipped`]);
  });

  it('still refuses a bad line in the middle, or a bad last line that has its newline, naming file:line', () => {
    const path = join(directory, 'records.jsonl');
    writeFileSync(path, `${JSON.stringify(record(1))}\n{"half\n${JSON.stringify(record(3))}\n`);
    expect(() => readEpisodeRecords(path, () => {})).toThrow(`${path}:2 is not JSON`);
    writeFileSync(path, `${JSON.stringify(record(1))}\n{"half\n`);
    expect(() => readEpisodeRecords(path, () => {})).toThrow(`${path}:2 is not JSON`);
  });

  it('keeps an errored episode: the error field is part of the schema', () => {
    const path = join(directory, 'records.jsonl');
    const error = { code: 'ENV_FAULT', message: 'the browser crashed', retryable: true };
    new JsonlRecordSink(path).write({ ...record(4), error });
    expect(readEpisodeRecords(path)[0]?.error).toEqual(error);
  });
});
