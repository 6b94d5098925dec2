import { redactedUrl } from './redacted-url';

/**
 * Names whose value is a credential: `--token`, `--api-key`, `GITHUB_PERSONAL_ACCESS_TOKEN`, `DB_PASSWORD`,
 * `--client-secret`, `Authorization` … (not `--max-tokens`, `--tokenizer`, `--author`, `--authority`; `key` alone or
 * at the end of a name).
 */
const SECRET_NAME =
  /token(?!s|iz)|secret|passw(?:or)?d|credential|auth(?!or(?!iz))|bearer|cookie|(?:^|[-_.])key$|apikey|accesskey/i;

/** Names that hold a secret's whereabouts, not the secret: `--token-file`, `--no-auth`, `KEY_PATH`. */
const NOT_A_SECRET = /^no-|[-_.](?:file|path|dir|env|var)$/i;

/** Values that are credentials by their shape alone, wherever they stand (OpenAI, Anthropic, GitHub, Slack keys). */
const SECRET_VALUE = /^(?:sk|pk|rk)-[\w-]{16,}$|^gh[pousr]_\w{20,}$|^github_pat_\w{20,}$|^xox[abpr]-[\w-]{10,}$/;

const HIDDEN = '…';

/** Whether `name` (a flag without its dashes, an env-style variable, a header) names a credential. */
function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_A_SECRET.test(name);
}

/**
 * The credentials in a URL argument: its password (its user name when it has none: `https://key@host`) and the
 * values of credential-like query parameters. Other query values are hidden from the command line shown, as
 * `redactedUrl` hides them, but are no reason to cut words out of a server's stderr.
 */
function urlSecrets(url: string): string[] {
  try {
    const parsed = new URL(url);
    const query = [...parsed.searchParams].filter(([name]) => isSecretName(name)).map(([, value]) => value);
    return [parsed.password === '' ? parsed.username : parsed.password, ...query].filter((value) => value !== '');
  } catch {
    return [];
  }
}

/** A stdio server's command line as it may be shown, and the values hidden from it. */
export interface RedactedCommand {
  readonly text: string;
  /**
   * What was hidden, and the values of credential-like variables of the server's environment (never shown, but a
   * server may echo them on stderr): a fault message must not quote them either.
   */
  readonly secrets: readonly string[];
}

/**
 * A stdio server's command line as messages and the spec may show it: the values of credential-like flags and
 * assignments (`--token x`, `--api-key=x`, `TOKEN=x`, `Authorization: Bearer x`), keys recognisable by their shape,
 * and a URL's credentials and query values (as `redactedUrl`) become `…`; every other argument shows as it is.
 * Fault messages end up in run records and logs, and the spec's summary goes to every client of `turngym serve`.
 */
export function redactedCommand(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): RedactedCommand {
  const shown: string[] = [];
  const secrets = Object.entries(env)
    .filter(([name, value]) => isSecretName(name) && value !== '')
    .map(([, value]) => value);
  const hide = (value: string): void => void (value !== '' && secrets.push(value));
  let valueIsSecret = false;
  for (const arg of args) {
    const flagValue = valueIsSecret && !arg.startsWith('-');
    valueIsSecret = false;
    if (flagValue || SECRET_VALUE.test(arg)) {
      hide(arg);
      shown.push(HIDDEN);
      continue;
    }
    if (/^[a-z][a-z\d+.-]*:\/\//i.test(arg)) {
      urlSecrets(arg).forEach(hide);
      shown.push(redactedUrl(arg));
      continue;
    }
    // `--token=x`, `TOKEN=x` (docker's `-e TOKEN=x`, `env TOKEN=x server`), `Authorization: Bearer x` (a header).
    const assignment = /^(-{0,2})([A-Za-z][\w.-]*)(=|:\s*)/.exec(arg);
    if (assignment && isSecretName(assignment[2] as string)) {
      const value = arg.slice(assignment[0].length);
      hide(value);
      // A header's scheme is no secret; the credential after it may show alone on stderr.
      hide(/^(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value)?.[1] ?? '');
      shown.push(`${assignment[0]}${HIDDEN}`);
      continue;
    }
    // `--token x`: the flag shows, the value after it does not.
    const flag = /^-{1,2}([A-Za-z][\w.-]*)$/.exec(arg);
    valueIsSecret = flag !== null && isSecretName(flag[1] as string);
    shown.push(arg);
  }
  return { text: [command, ...shown].join(' '), secrets };
}

/** `text` with every one of `secrets` (of 4 characters or more) replaced by `…`, longest first. */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  return secrets
    .filter((secret) => secret.length >= 4)
    .sort((a, b) => b.length - a.length)
    .reduce((out, secret) => out.split(secret).join(HIDDEN), text);
}
