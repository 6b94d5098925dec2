/**
 * Explained variance within s_0 (the question alone), s_1 and s_2 onwards: where a critic falls short (V^π itself
 * explains 0.63, 0.79 and 0.98 of them on the probe's held-out data, docs/benchmarks/learning.md). `pairs` hold
 * each state's predicted `value`, its return `target` and its turn `k`. Shared by critic-benchmark.js and
 * critic-probe.js.
 */
const { explainedVariance } = require('@turngym/trainer-self-ac');

function evByTurn(pairs) {
  return [
    ['s_0', (k) => k === 0],
    ['s_1', (k) => k === 1],
    ['s_2+', (k) => k >= 2],
  ].map(([turn, keep]) => {
    const mine = pairs.filter((p) => keep(p.k));
    const ev = explainedVariance(
      mine.map((p) => p.value),
      mine.map((p) => p.target),
    );
    return { turn, states: mine.length, ev: Number.isFinite(ev) ? ev : null };
  });
}

const byTurnLine = (byTurn) =>
  `by turn: ${byTurn.map((t) => `${t.turn} ${t.ev === null ? '—' : t.ev.toFixed(3)} (${t.states} states)`).join(', ')}.`;

module.exports = { evByTurn, byTurnLine };
