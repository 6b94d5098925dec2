/**
 * The loop filter of CCAPO (ALGORITHMS.md §3 line 103; seed §7.1): a step that repeats the previous step
 * (A → A) or goes back to the one before it (A → B → A) earns no micro reward, so the policy cannot farm the
 * history store's high-score edges by going round in circles; it still counts in N_step, so the macro stream
 * charges it too.
 *
 * What counts as "the same step" (`loopNode`) **[choice]**: the seed's graph nodes are abstract action
 * fingerprints (§3.1), fine-grained in its domains (`PUT(apple, fridge)`), where doing the same thing twice in a
 * row is going round in circles. An env's fingerprint may be coarser than that: math's is the kind of factor
 * (`CALC(+)`), so a second, different addition would look like A → A, and it is progress. A step is therefore the
 * same as an earlier one only when it did the same thing and got nowhere new: the same fingerprint, the same
 * action text (whitespace aside) and the same location reached (`info.anchor` after the step). A calculator call
 * with another expression, or any action that moves the state on, is never a loop; clicking back to a page one
 * was on two steps ago (NAV(a) → NAV(b) → NAV(a)) still is.
 */
export function loopSteps(nodes: readonly (string | null)[]): boolean[] {
  return nodes.map((node, t) => {
    if (node === null) return false;
    return (t >= 1 && nodes[t - 1] === node) || (t >= 2 && nodes[t - 2] === node);
  });
}

/**
 * The node a step is compared by in `loopSteps`: its fingerprint, its action text with runs of whitespace made
 * one space, and the location it reached.
 */
export function loopNode(fingerprint: string, action: string, locationReached: string): string {
  return JSON.stringify([fingerprint, action.trim().replace(/\s+/g, ' '), locationReached]);
}
