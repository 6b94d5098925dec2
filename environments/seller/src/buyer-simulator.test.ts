import { SeededRng } from '@turngym/core';
import {
  BuyerSimulator,
  cloneBuyerState,
  createBuyerState,
  objectionsFor,
  type BuyerState,
  type SellerMove,
} from './buyer-simulator';
import type { Intent } from './meta-actions';
import { loadSellerData, type Persona, type Product } from './seller-data';
import { judgeBuyerState } from './simulated-judge';

const data = loadSellerData();
const persona = (id: string): Persona => data.personas.find((each) => each.id === id)!;
const product = (id: string): Product => data.products.find((each) => each.id === id)!;

/** A buyer with no noise, so that each test isolates one effect. */
function meet(personaId: string, productId: string): { simulator: BuyerSimulator; state: BuyerState; rng: SeededRng } {
  const rng = new SeededRng(1);
  return {
    simulator: new BuyerSimulator(persona(personaId), product(productId)),
    state: createBuyerState(persona(personaId), product(productId), rng, 0),
    rng,
  };
}

const move = (intent: Intent, pitched: SellerMove['pitched'] = []): SellerMove => ({ intent, pitched });

function run(buyer: ReturnType<typeof meet>, moves: readonly SellerMove[]): string[] {
  return moves.map((each) => buyer.simulator.react(buyer.state, each, buyer.rng, 0).text);
}

describe('the simulated buyer', () => {
  it('has hidden objections: over budget the price comes up by itself; hidden ones only when asked', () => {
    // Tom (skeptical builder): trust voiced, quality hidden; the drill is within his budget.
    expect(
      objectionsFor(persona('tom-builder'), product('torquemaster-drill')).map((each) => [each.kind, each.status]),
    ).toEqual([
      ['trust', 'queued'],
      ['quality', 'latent'],
    ]);
    // Chloe needs something light: the chair's bulk clashes with that, so she raises it too.
    expect(objectionsFor(persona('chloe-blogger'), product('posture-chair')).map((each) => each.kind)).toEqual([
      'price',
      'size',
    ]);
    // Lena (shy student, budget 70) and the 89-dollar backpack: over budget, but shy, she keeps even that to herself.
    expect(
      objectionsFor(persona('lena-student'), product('trail-backpack')).map((each) => [each.kind, each.status]),
    ).toEqual([
      ['price', 'latent'],
      ['need', 'latent'],
    ]);
  });

  it('pitching the needs the buyer named lands far better than a blind pitch', () => {
    const blind = meet('raj-engineer', 'voltpack-powerbank');
    const targeted = meet('raj-engineer', 'voltpack-powerbank');
    const before = blind.state.propensity;
    run(blind, [move('greet'), move('introduce', ['safety', 'portability'])]);
    run(targeted, [move('greet'), move('introduce', ['performance', 'battery'])]);
    expect(targeted.state.propensity - before).toBeGreaterThan(2 * (blind.state.propensity - before));
  });

  it('meets the voiced objection with the right move, not with the wrong one', () => {
    const right = meet('tom-builder', 'torquemaster-drill');
    const wrong = meet('tom-builder', 'torquemaster-drill');
    const opening = [move('greet'), move('introduce', ['durability', 'performance'])];
    expect(run(right, opening)[1]).toContain("How do I know this isn't some street scam?");
    run(wrong, opening);
    expect(run(right, [move('answer-doubts')])).toEqual([expect.stringContaining('Okay, that makes sense.')]);
    expect(run(wrong, [move('press')])).toEqual([
      expect.stringContaining("You haven't even answered my question about whether I can trust you!"),
    ]);
    expect(right.state.propensity).toBeGreaterThan(wrong.state.propensity + 0.15);
    expect(right.state.mood).toBeGreaterThan(wrong.state.mood);
  });

  it('says what it hides only when asked, and a deal-breaker the product cannot defuse ends the talk', () => {
    const buyer = meet('tom-builder', 'torquemaster-drill');
    run(buyer, [move('greet'), move('introduce', ['durability']), move('answer-doubts')]);
    expect(run(buyer, [move('ask-doubts')])).toEqual(['Will it break after a month?']);
    expect(run(buyer, [move('answer-doubts')])).toEqual([expect.stringContaining('Okay, that makes sense.')]);
    expect(run(buyer, [move('ask-doubts')])).toEqual(['No, I think that covers everything.']);
    // Helen refuses anything with a camera. The doorbell has one and nothing defuses it: she leaves when it comes up.
    const helen = meet('helen-lawyer', 'ringsafe-doorbell');
    expect(helen.state.objections.map((each) => each.tag ?? each.kind)).toEqual(['trust', 'quality', 'camera']);
    run(helen, [move('greet'), move('introduce', ['safety'])]);
    for (const objection of helen.state.objections)
      if (objection.kind !== 'deal-breaker') objection.status = 'resolved';
    expect(run(helen, [move('ask-doubts')])).toEqual([
      'One thing though: I would never buy anything that has a camera watching me. So this is not for me. Goodbye.',
    ]);
    expect(helen.state.left).toBe(true);
    expect(judgeBuyerState(helen.state).verdict).toBe('refuse');
    // The robot vacuum's camera can be switched off: the same deal-breaker is defused by the answer.
    const vacuum = meet('helen-lawyer', 'dustbot-vacuum');
    run(vacuum, [move('greet'), move('introduce', ['quiet'])]);
    for (const objection of vacuum.state.objections)
      if (objection.kind !== 'deal-breaker') objection.status = 'resolved';
    expect(run(vacuum, [move('ask-doubts'), move('answer-doubts')])).toEqual([
      'One thing though: I would never buy anything that has a camera watching me.',
      'Oh, then that is fine.',
    ]);
  });

  it('threats drive buyers away; pressure before they are ready backfires; repetition wears them down', () => {
    const threatened = meet('raj-engineer', 'voltpack-powerbank');
    expect(run(threatened, [move('threaten')])[0]).toContain('Are you threatening me?');
    expect(threatened.state.left).toBe(true);

    const pressed = meet('maya-nurse', 'calmweight-blanket');
    const calm = meet('maya-nurse', 'calmweight-blanket');
    run(pressed, [move('greet'), move('press')]);
    run(calm, [move('greet'), move('ask-requirements')]);
    expect(pressed.state.propensity).toBeLessThan(calm.state.propensity);
    expect(pressed.state.mood).toBeLessThan(calm.state.mood);

    const repeated = meet('maya-nurse', 'calmweight-blanket');
    const varied = meet('maya-nurse', 'calmweight-blanket');
    run(repeated, [move('greet'), move('empathize'), move('empathize')]);
    run(varied, [move('greet'), move('ask-scenario'), move('empathize')]);
    expect(repeated.state.propensity).toBeLessThan(varied.state.propensity);
    expect(repeated.state.patience).toBeLessThan(varied.state.patience);
  });

  it('buys when ready with nothing left open, and the judge rules "buy" only then', () => {
    const buyer = meet('maya-nurse', 'calmweight-blanket');
    const moves = [
      move('greet'),
      move('ask-requirements'),
      move('introduce', ['comfort', 'health']),
      move('ask-scenario'),
      move('empathize'),
      move('ask-doubts'),
      move('answer-doubts'),
      move('press'),
    ];
    const replies: string[] = [];
    for (const each of moves) {
      expect(judgeBuyerState(buyer.state).verdict).toBe('continue');
      replies.push(...run(buyer, [each]));
      if (buyer.state.committed) break;
    }
    expect(replies[1]).toBe('What matters most to me is comfort and my health.');
    expect(replies[replies.length - 1]).toMatch(/How do I order one\?$/);
    expect(judgeBuyerState(buyer.state)).toMatchObject({ verdict: 'buy', score: 4 });
  });

  it('a press closes a buyer near the threshold with nothing open, not one with an open doubt', () => {
    const ready = meet('maya-nurse', 'calmweight-blanket');
    run(ready, [move('greet'), move('introduce', ['comfort'])]);
    for (const objection of ready.state.objections) objection.status = 'resolved';
    ready.state.propensity = ready.state.threshold - 0.05;
    const doubtful = meet('maya-nurse', 'calmweight-blanket');
    doubtful.state = cloneBuyerState(ready.state);
    doubtful.state.objections.push({ kind: 'quality', status: 'latent' });
    expect(run(ready, [move('press')])).toEqual(["Alright, you've convinced me. How do I order one?"]);
    expect(run(doubtful, [move('press')])).toEqual(['Hold on. Will it break after a month?']);
    expect(doubtful.state.committed).toBe(false);
  });

  it('is deterministic given its random stream, and a cloned state evolves independently', () => {
    const a = meet('carlos-father', 'kidsafe-tablet');
    const moves = [move('greet'), move('introduce', ['safety']), move('answer-doubts'), move('empathize')];
    const noisy = (seed: number): string[] => {
      const rng = new SeededRng(seed);
      const state = createBuyerState(persona('carlos-father'), product('kidsafe-tablet'), rng, 0.3);
      return moves.map((each) => `${a.simulator.react(state, each, rng, 0.3).text} ${state.propensity.toFixed(6)}`);
    };
    expect(noisy(9)).toEqual(noisy(9));
    expect(noisy(9)).not.toEqual(noisy(10));
    const copy = cloneBuyerState(a.state);
    run(a, moves);
    expect(copy.turns).toBe(0);
    expect(copy.objections.every((each) => each.status !== 'resolved')).toBe(true);
  });
});
