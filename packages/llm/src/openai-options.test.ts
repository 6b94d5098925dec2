import { InvalidOptionsError } from '@turngym/core';
import { LOCAL_PLACEHOLDER_API_KEY, resolveOpenAIOptions } from './openai-options';

describe('resolveOpenAIOptions', () => {
  it('reads base URL, key, model and limits from the environment, TurnGym names first', () => {
    const options = resolveOpenAIOptions(
      {},
      {
        TURNGYM_OPENAI_BASE_URL: 'http://10.0.0.5:8000/v1/',
        OPENAI_BASE_URL: 'http://ignored/v1',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_MODEL: 'Qwen/Qwen2.5-7B-Instruct',
        TURNGYM_OPENAI_TIMEOUT_MS: '1500',
        TURNGYM_OPENAI_MAX_RETRIES: '4',
      },
    );
    expect(options).toMatchObject({
      baseURL: 'http://10.0.0.5:8000/v1',
      apiKey: 'sk-test',
      model: 'Qwen/Qwen2.5-7B-Instruct',
      timeoutMs: 1500,
      maxRetries: 4,
      stream: false,
      maxTokensParameter: 'max_tokens',
    });
  });

  it('options win over the environment', () => {
    const options = resolveOpenAIOptions(
      { model: 'm', baseURL: 'http://a/v1', apiKey: 'k', maxRetries: 0 },
      { OPENAI_MODEL: 'x', OPENAI_BASE_URL: 'http://b/v1', TURNGYM_OPENAI_MAX_RETRIES: '5' },
    );
    expect(options).toMatchObject({ model: 'm', baseURL: 'http://a/v1', apiKey: 'k', maxRetries: 0 });
  });

  it('refuses a key or header HTTP cannot carry (pasted with typographic quotes), naming where, never echoing it', () => {
    const key = 'sk-proj-Zq8uVt3LmN0pXr7sYw2K';
    const refused = (input: Record<string, unknown>, environment: Record<string, string> = {}) => {
      try {
        resolveOpenAIOptions({ model: 'm', baseURL: 'http://127.0.0.1:8000/v1', ...input }, environment);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidOptionsError);
        expect((error as Error).message).not.toContain(key);
        return (error as InvalidOptionsError).problems;
      }
      throw new Error('accepted');
    };
    // fetch refused these before sending, and the call failed as an "unreadable response" from the server.
    expect(refused({ apiKey: `“${key}”` })).toEqual([
      'options.apiKey has "“" (U+201C) at character 0, which an HTTP header cannot carry: was it pasted with ' +
        'typographic quotes, a dash or a line break?',
    ]);
    expect(refused({}, { OPENAI_API_KEY: `${key}\u2014old` })).toEqual([
      expect.stringMatching(/^environment variable OPENAI_API_KEY has "—" \(U\+2014\) at character 28, /),
    ]);
    expect(refused({ apiKey: key, headers: { 'x-api-key': `${key}\nX-Evil: 1`, 'bad name': 'x' } })).toEqual([
      expect.stringMatching(/^options\.headers\["x-api-key"\] has a control character \(U\+000A\) at character 28,/),
      'options.headers has a header name HTTP does not allow: "bad name"',
    ]);
    // Nor is a key passed in the wrong shape printed by the schema's "got …".
    expect(refused({ apiKey: { key } })).toEqual(['options.apiKey must be a string (got an object)']);
    expect(refused({ apiKey: [key] })).toEqual(['options.apiKey must be a string (got an array)']);
    // A key read from a file keeps its line break at the end: fetch trims that, so it is sent as it should be.
    expect(resolveOpenAIOptions({ model: 'm', apiKey: `${key}\n` }, {}).apiKey).toBe(`${key}\n`);
  });

  it('sends a placeholder key to a local server but demands one for api.openai.com', () => {
    expect(resolveOpenAIOptions({ model: 'm', baseURL: 'http://127.0.0.1:8000/v1' }, {}).apiKey).toBe(
      LOCAL_PLACEHOLDER_API_KEY,
    );
    expect(() => resolveOpenAIOptions({ model: 'gpt-4o-mini' }, {})).toThrow(
      /no API key for https:\/\/api\.openai\.com\/v1: set TURNGYM_OPENAI_API_KEY or OPENAI_API_KEY/,
    );
  });

  it('names the field or variable that is wrong', () => {
    expect(() => resolveOpenAIOptions({}, {})).toThrow(
      /options\.model is required \(or set TURNGYM_OPENAI_MODEL \/ OPENAI_MODEL\)/,
    );
    expect(() =>
      resolveOpenAIOptions({ model: 'm', baseURL: 'http://x/v1' }, { TURNGYM_OPENAI_TIMEOUT_MS: 'soon' }),
    ).toThrow(/TURNGYM_OPENAI_TIMEOUT_MS must be an integer/);
    const error = (() => {
      try {
        resolveOpenAIOptions(
          { model: 'm', baseURL: 'http://x/v1', maxTokensParameter: 'tokens' as never, tmeoutMs: 5 } as never,
          {},
        );
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect((error as Error).message).toMatch(/unknown field "tmeoutMs"/);
    expect((error as Error).message).toMatch(
      /maxTokensParameter must be one of: "max_tokens", "max_completion_tokens"/,
    );
  });

  it('names a misspelt field before complaining about the OpenAI key it led to', () => {
    // `baseUrl` is not read, so the default api.openai.com stays: the typo is the error worth naming.
    expect(() => resolveOpenAIOptions({ model: 'm', baseUrl: 'http://127.0.0.1:8000/v1' } as never, {})).toThrow(
      /unknown field "baseUrl"/,
    );
  });

  it('refuses a base URL that is an endpoint or not a URL, naming where it came from', () => {
    expect(() =>
      resolveOpenAIOptions({ model: 'm', baseURL: 'http://127.0.0.1:8000/v1/chat/completions' }, {}),
    ).toThrow(/options\.baseURL must be the API root, not an endpoint: use "http:\/\/127\.0\.0\.1:8000\/v1"/);
    expect(() =>
      resolveOpenAIOptions({ model: 'm' }, { OPENAI_BASE_URL: 'https://gateway.example/v1/chat/completions/' }),
    ).toThrow(
      /environment variable OPENAI_BASE_URL must be the API root, not an endpoint: use "https:\/\/gateway\.example\/v1"/,
    );
    expect(() => resolveOpenAIOptions({ model: 'm', baseURL: 'http://gpu box:8000/v1' }, {})).toThrow(
      /options\.baseURL is not a valid URL \(got "http:\/\/gpu box:8000\/v1"\)/,
    );
  });

  it('refuses credentials in the base URL without echoing them', () => {
    const error = (() => {
      try {
        resolveOpenAIOptions({ model: 'm' }, { OPENAI_BASE_URL: 'https://alice:s3cret@proxy.example:8443/v1' });
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidOptionsError);
    expect(error?.message).toContain(
      'environment variable OPENAI_BASE_URL must not hold a user name or password (https://…@proxy.example:8443/v1)',
    );
    expect(error?.message).not.toMatch(/s3cret|alice/);
  });

  it('names the environment variable whose value is out of range', () => {
    expect(() =>
      resolveOpenAIOptions({ model: 'm', baseURL: 'http://x/v1' }, { TURNGYM_OPENAI_MAX_RETRIES: '-1' }),
    ).toThrow(/environment variable TURNGYM_OPENAI_MAX_RETRIES must be >= 0 \(got -1\)/);
  });

  it('refuses a timeout longer than a Node timer holds (it would fire after 1 ms)', () => {
    expect(() => resolveOpenAIOptions({ model: 'm', baseURL: 'http://x/v1', timeoutMs: 3_000_000_000 }, {})).toThrow(
      /options\.timeoutMs must be <= 2147482647/,
    );
    expect(resolveOpenAIOptions({ model: 'm', baseURL: 'http://x/v1', timeoutMs: 2_147_482_647 }, {}).timeoutMs).toBe(
      2_147_482_647,
    );
  });
});
