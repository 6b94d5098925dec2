import type { ValidationDetail } from './protocol';
import { echoedInput } from './request-validation';
import { InvalidRequestError } from './server-errors';

/**
 * What becomes of the fields of a `reset` (or `POST /step`) that TurnGym does not define.
 *
 * OpenEnv's ResetRequest and StepRequest allow extra fields (pydantic `extra="allow"`) and hand them to the env's
 * `reset(**kwargs)` / `step(action, **kwargs)` (an env whose signature takes no such parameter never sees them):
 * `client.reset(seed=1, fen="…")` is how an OpenEnv caller picks a chess position. A reset's extra fields are
 * therefore the episode's options here (`ResetArgs.options`, which is what TurnGym's envs read a task id or a
 * start position from); a `POST /step`'s are step parameters, which no TurnGym step takes, so they are ignored.
 *
 * One refusal stays: an extra field one letter away from a field TurnGym reads (`sede`, `Seed`, `episodeId`,
 * `option`) is a typo, and passing it on as an option most envs ignore would silently play a random episode.
 */
export type ExtraFields = 'options' | 'ignored';

/** Lower case without `_`/`-`: `episodeId`, `Episode-ID` and `episode_id` are one name. */
function normalized(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/** Edit distance with adjacent transpositions (optimal string alignment), stopping early past 1. */
function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[i]!.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]!.push(best);
    }
  }
  return rows[a.length]![b.length]! <= 1;
}

/** The field TurnGym reads that `name` looks like a typo of, if any. */
function lookalike(name: string, known: readonly string[]): string | undefined {
  const wanted = normalized(name);
  return known.find((field) => withinOneEdit(wanted, normalized(field)));
}

/**
 * `data` with its extra fields (those not in `known`) moved into `options`, or dropped (`ignored`). A look-alike
 * of a known field, or an extra field that `options` also sets, is a VALIDATION_ERROR at `loc` + the field, whose
 * message starts with `summary` as the schema's own refusals do.
 */
export function foldExtraFields<T extends { options?: Record<string, unknown> }>(
  data: T,
  known: readonly string[],
  extras: ExtraFields,
  loc: readonly (string | number)[],
  summary: string,
): T {
  const extraNames = Object.keys(data).filter((name) => !known.includes(name));
  if (extraNames.length === 0) return data;
  const record = data as Record<string, unknown>;
  const base = loc.length > 0 ? loc.join('.') : 'request';
  const details: ValidationDetail[] = [];
  for (const name of extraNames) {
    const meant = lookalike(name, known);
    if (meant !== undefined) {
      details.push({
        type: 'extra_forbidden',
        loc: [...loc, name],
        msg:
          `${base} has unknown field "${name}": did you mean "${meant}"? (allowed fields: ${known.join(', ')}; ` +
          (extras === 'options'
            ? 'any other field is one of the episode\'s reset options, as "options" are)'
            : 'any other field is a step parameter, which no TurnGym step takes)'),
        ...echoedInput(record[name]),
      });
    } else if (extras === 'options' && data.options !== undefined && Object.hasOwn(data.options, name)) {
      details.push({
        type: 'value_error',
        loc: [...loc, name],
        msg: `${base}.${name} is a reset option given twice, as a field and in options: send it once`,
        ...echoedInput(record[name]),
      });
    }
  }
  if (details.length > 0)
    throw new InvalidRequestError(`${summary}: ${details.map((detail) => detail.msg).join('; ')}`, details);
  const kept = Object.fromEntries(Object.entries(record).filter(([name]) => known.includes(name)));
  if (extras === 'ignored') return kept as T;
  const moved = Object.fromEntries(extraNames.map((name) => [name, record[name]]));
  return { ...kept, options: { ...data.options, ...moved } } as T;
}
