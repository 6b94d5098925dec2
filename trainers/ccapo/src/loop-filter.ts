/**
 * The loop filter of CCAPO (ALGORITHMS.md §3 line 103; seed §7.1): a step that repeats the previous step
 * (A → A) or goes back to the one before it (A → B → A) earns no micro reward, so the policy cannot farm the
 * history store's high-score edges by going round in circles; it still counts in N_step, so the macro stream
 * charges it too.
 *
 * The nodes compared are the actions' fingerprints, the seed's graph nodes (§3.1: "node = abstract action
 * fingerprint", edges â_{t−1} → â_t) **[choice]**: the env's location alone would flag every action that does
 * not move (typing into a form), which is progress.
 */
export function loopSteps(nodes: readonly (string | null)[]): boolean[] {
  return nodes.map((node, t) => {
    if (node === null) return false;
    return (t >= 1 && nodes[t - 1] === node) || (t >= 2 && nodes[t - 2] === node);
  });
}
