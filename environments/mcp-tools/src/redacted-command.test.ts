import { redactedCommand, withoutSecrets } from './redacted-command';

describe('redactedCommand', () => {
  it('hides the values of credential-like flags and assignments, and shows every other argument', () => {
    const { text, secrets } = redactedCommand('server', [
      '--token',
      'abc123xyz',
      '--api-key=K3Y-999',
      'TOKEN=zzz999',
      '-e',
      'GITHUB_PERSONAL_ACCESS_TOKEN=ghp_0123456789abcdefghij',
      '--client-secret=s3cr3t!',
      '--header',
      'Authorization: Bearer sekrit-value',
      '--port',
      '8080',
      '/srv/data',
    ]);
    expect(text).toBe(
      'server --token … --api-key=… TOKEN=… -e GITHUB_PERSONAL_ACCESS_TOKEN=… --client-secret=… --header Authorization: … --port 8080 /srv/data',
    );
    expect(secrets).toEqual(
      expect.arrayContaining(['abc123xyz', 'K3Y-999', 'zzz999', 'ghp_0123456789abcdefghij', 's3cr3t!', 'sekrit-value']),
    );
  });

  it('hides keys known by their shape and the credentials of a URL argument', () => {
    expect(redactedCommand('npx', ['mcp-remote', 'https://ada:pw99@host/mcp?api_key=abcd&v=2']).text).toBe(
      'npx mcp-remote https://…@host/mcp?api_key=…&v=…',
    );
    expect(redactedCommand('srv', ['sk-abcdefghijklmnopqrstuv', 'xoxb-123456789012-abc']).text).toBe('srv … …');
  });

  it('leaves alone flags that only name where a secret is, or that take no value', () => {
    const args = [
      '--no-auth',
      '/data',
      '--token-file',
      '/run/secrets/t',
      '--author',
      'ada',
      '--authority',
      'example.org',
      '--max-tokens',
      '100',
      '--tokenizer',
      'gpt2',
      '--password',
      '-v',
      'PWD=/home',
    ];
    expect(redactedCommand('srv', args).text).toBe(`srv ${args.join(' ')}`);
  });

  it("counts the values of the server's credential-like environment variables as secrets, never showing them", () => {
    const { text, secrets } = redactedCommand('srv', [], { OPENAI_API_KEY: 'sk-env', HOME: '/root' });
    expect(text).toBe('srv');
    expect(secrets).toEqual(['sk-env']);
  });
});

describe('withoutSecrets', () => {
  it('cuts every secret out of a text, the longest first, and leaves secrets too short to tell from words', () => {
    expect(withoutSecrets('key abc123xyz and abc123 and ab', ['abc123', 'abc123xyz', 'ab'])).toBe('key … and … and ab');
  });
});
