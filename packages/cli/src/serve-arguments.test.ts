import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveSettingsSchema } from '@turngym/server';
import { integerFlag, parseClientOptions, resolveServeToken, SERVE_FLAG_BOUNDS } from './serve-arguments';

const dir = mkdtempSync(join(tmpdir(), 'turngym-serve-arguments-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--client-options', () => {
  it('reads a comma list, *, an inline JSON Schema, and a .json file', () => {
    expect(parseClientOptions('source, articles')).toEqual(['source', 'articles']);
    expect(parseClientOptions('*')).toEqual(['*']);
    const schema = { properties: { articles: { maximum: 20000 } } };
    expect(parseClientOptions(JSON.stringify(schema))).toEqual(schema);
    const file = join(dir, 'clients.json');
    writeFileSync(file, JSON.stringify(['corpus']));
    expect(parseClientOptions(file)).toEqual(['corpus']);
  });

  it('refuses what is none of the forms, saying which', () => {
    expect(() => parseClientOptions('source;rm -rf')).toThrow(/not an option name/);
    expect(() => parseClientOptions('{"articles": 1}')).toThrow(/JSON Schema with "properties"/);
    expect(() => parseClientOptions(join(dir, 'absent.json'))).toThrow(/Cannot read .*absent\.json \(ENOENT\)/);
  });
});

describe('the serve token', () => {
  it('comes from --token, else --token-file (first line), else TURNGYM_SERVER_TOKEN', () => {
    const file = join(dir, 'token');
    writeFileSync(file, 's3cret-from-file\n');
    const environment = { TURNGYM_SERVER_TOKEN: 's3cret-from-env' };
    expect(resolveServeToken({ token: 'argv' }, environment)).toBe('argv');
    expect(resolveServeToken({ tokenFile: file }, environment)).toBe('s3cret-from-file');
    expect(resolveServeToken({}, environment)).toBe('s3cret-from-env');
    expect(resolveServeToken({}, {})).toBeUndefined();
  });

  it('refuses both flags, an empty file and a missing one', () => {
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    expect(() => resolveServeToken({ token: 'a', tokenFile: empty }, {})).toThrow(/not both/);
    expect(() => resolveServeToken({ tokenFile: empty }, {})).toThrow(/is empty/);
    expect(() => resolveServeToken({ tokenFile: join(dir, 'nope') }, {})).toThrow(/Cannot read the token file/);
  });
});

describe('the numeric flags of turngym serve', () => {
  it("hold the same bounds as serveEnvs's settings schema", () => {
    for (const [setting, bounds] of Object.entries(SERVE_FLAG_BOUNDS)) {
      const property = (serveSettingsSchema.properties as Record<string, { minimum?: number; maximum?: number }>)[
        setting
      ];
      expect({ setting, minimum: property?.minimum, maximum: property?.maximum }).toEqual({ setting, ...bounds });
    }
  });

  it('take an integer within the bounds and refuse anything else, saying the range', () => {
    const parse = integerFlag('heartbeatMs');
    expect(parse(' 0 ')).toBe(0);
    expect(parse('3600000')).toBe(3600000);
    for (const bad of ['', '-1', '1.5', '3600001', 'soon'])
      expect(() => parse(bad)).toThrow('Expected an integer from 0 to 3600000.');
  });
});
