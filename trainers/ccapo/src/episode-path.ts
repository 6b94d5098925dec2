import { anchorText, type TrajectoryStep } from '@turngym/rl';
import { loopNode, loopSteps } from './loop-filter';

/** Where an episode starts: the location and previous action of its first step's anchor. */
export const START_NODE = '^';

/** One step of an episode as the history store sees it: the edge it took, where it stood, whether it looped. */
export interface PathStep {
  /**
   * S_anchor = (AbstractLoc(s_t), Fingerprint(a_{t−1})) (ALGORITHMS.md §3 line 91), written `loc|fingerprint`;
   * the first step's is `^|^`.
   */
  readonly anchor: string;
  /** Fingerprint(a_t): the edge is anchor → fingerprint. */
  readonly fingerprint: string;
  /** A → A or A → B → A: the same action to the same place as one or two steps before (`loopSteps`). */
  readonly loop: boolean;
  /** Steps after this one to the episode's end (0 for the last step): the sample of d_goal. */
  readonly stepsToEnd: number;
}

/** The separator of an anchor key's two parts. */
const SEPARATOR = '|';

/**
 * Joins a location and the previous action's fingerprint into an anchor key, `location|fingerprint`. Joined as
 * they are, two pairs could give one key (`a|b` + `c` and `a` + `b|c` are both `a|b|c`): two different anchors
 * would share one baseline V̄ and one set of edges. So when a part holds a `|`, both parts are escaped (`\` → `\\`,
 * `|` → `\|`) before the join; such a key holds at least two `|`, a key of plain parts exactly one, and escaped keys
 * split back one way only. A key whose parts hold no `|` is the plain join, byte for byte as before, so stores
 * written by earlier runs (and the figures from them) keep their meaning.
 */
export function anchorKey(location: string, previousFingerprint: string): string {
  if (!location.includes(SEPARATOR) && !previousFingerprint.includes(SEPARATOR))
    return `${location}${SEPARATOR}${previousFingerprint}`;
  const escape = (part: string): string => part.replace(/[\\|]/g, (character) => `\\${character}`);
  return `${escape(location)}${SEPARATOR}${escape(previousFingerprint)}`;
}

/** A hook's value as text: an object as JSON with sorted keys (`anchorText`), null when there is none. */
function hook(info: Readonly<Record<string, unknown>> | undefined, name: 'fingerprint' | 'anchor'): string | null {
  return anchorText(info?.[name]);
}

/**
 * The episode's path through the history graph, from the hooks every env reports in each step's info
 * (`info.fingerprint` of the action just taken, `info.anchor` of the state reached): step t's anchor is the
 * location step t − 1 reached and the fingerprint of action t − 1. Null when a step lacks either hook (an env
 * without them): such an episode trains on the macro stream alone and never enters the store.
 */
export function episodePath(trajectory: {
  readonly steps: readonly Pick<TrajectoryStep, 'action' | 'info'>[];
}): PathStep[] | null {
  const fingerprints = trajectory.steps.map((step) => hook(step.info, 'fingerprint'));
  const locations = trajectory.steps.map((step) => hook(step.info, 'anchor'));
  if (fingerprints.some((value) => value === null) || locations.some((value) => value === null)) return null;
  const loops = loopSteps(trajectory.steps.map((step, t) => loopNode(fingerprints[t]!, step.action, locations[t]!)));
  const n = trajectory.steps.length;
  return fingerprints.map((fingerprint, t) => ({
    anchor: t === 0 ? anchorKey(START_NODE, START_NODE) : anchorKey(locations[t - 1]!, fingerprints[t - 1]!),
    fingerprint: fingerprint!,
    loop: loops[t]!,
    stepsToEnd: n - 1 - t,
  }));
}
