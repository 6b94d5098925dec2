import { SeededRng } from '@turngym/core';
import { sampleToken } from './sampling';

// vLLM's extension fields as vLLM defines them, checked on logits whose answer is known by hand.
describe('sampleToken with top_k, min_p and repetition_penalty', () => {
  // Probabilities at temperature 1: 0.5, 0.25, 0.15, 0.1 (ids 2, 0, 3, 1).
  const logits = Float32Array.from([Math.log(0.25), Math.log(0.1), Math.log(0.5), Math.log(0.15)]);
  const drawn = (settings: Parameters<typeof sampleToken>[1], seen?: number[], draws = 400): Set<number> => {
    const rng = new SeededRng(7);
    const tokens = new Set<number>();
    for (let i = 0; i < draws; i++) tokens.add(sampleToken(logits, settings, rng, seen).token);
    return tokens;
  };

  it('draws every token without them, and only the k likeliest with top_k', () => {
    expect(drawn({ temperature: 1, topP: 1 })).toEqual(new Set([0, 1, 2, 3]));
    expect(drawn({ temperature: 1, topP: 1, topK: 1 })).toEqual(new Set([2]));
    expect(drawn({ temperature: 1, topP: 1, topK: 2 })).toEqual(new Set([2, 0]));
    // top_p applies to what top_k kept, renormalised (vLLM): 0.5 / 0.75 ≥ 0.6 keeps id 2 alone.
    expect(drawn({ temperature: 1, topP: 0.6, topK: 2 })).toEqual(new Set([2]));
    expect(drawn({ temperature: 1, topP: 1, topK: 0 })).toEqual(new Set([0, 1, 2, 3]));
  });

  it('drops the tokens below min_p times the likeliest probability', () => {
    // 0.5 × 0.28 = 0.14: ids 2, 0 and 3 (0.15) stay, id 1 (0.1) goes.
    expect(drawn({ temperature: 1, topP: 1, minP: 0.28 })).toEqual(new Set([2, 0, 3]));
    expect(drawn({ temperature: 1, topP: 1, minP: 0.49 })).toEqual(new Set([2, 0]));
    expect(drawn({ temperature: 1, topP: 1, minP: 1 })).toEqual(new Set([2]));
  });

  it('penalises the seen tokens (divides a positive logit, multiplies a negative one), greedy picks included', () => {
    const greedy = (values: number[], penalty: number, seen: number[]): number =>
      sampleToken(
        Float32Array.from(values),
        { temperature: 0, topP: 1, repetitionPenalty: penalty },
        new SeededRng(1),
        seen,
      ).token;
    // 4 / 2 = 2 < 3: the seen id 0 loses to id 1.
    expect(greedy([4, 3, -1], 2, [0])).toBe(1);
    // -1 × 2 = -2 < -1.5: the seen id 0 loses to id 1.
    expect(greedy([-1, -1.5, -9], 2, [0, 0])).toBe(1);
    // Below 1 it favours repeats: 2 / 0.5 = 4 > 3.
    expect(greedy([2, 3, 0], 0.5, [0])).toBe(0);
    // Unseen tokens, or a penalty of 1, change nothing.
    expect(greedy([4, 3, -1], 2, [2])).toBe(0);
    expect(greedy([4, 3, -1], 1, [0])).toBe(0);
  });

  it("reports the drawn token's logprob under the model's own distribution, whatever the settings", () => {
    const rng = new SeededRng(3);
    const { token, logprob } = sampleToken(
      logits,
      { temperature: 0.7, topP: 1, topK: 1, repetitionPenalty: 3 },
      rng,
      [0, 1],
    );
    expect(token).toBe(2);
    expect(logprob).toBeCloseTo(Math.log(0.5), 6);
  });

  it('draws what it always drew when the fields are off or absent', () => {
    const draws = (settings: Parameters<typeof sampleToken>[1]): number[] => {
      const rng = new SeededRng(11);
      return Array.from({ length: 50 }, () => sampleToken(logits, settings, rng, [0, 2]).token);
    };
    for (const topP of [1, 0.8]) {
      const plain = draws({ temperature: 0.9, topP });
      expect(draws({ temperature: 0.9, topP, topK: 0, minP: 0, repetitionPenalty: 1 })).toEqual(plain);
      expect(draws({ temperature: 0.9, topP, topK: null, minP: null, repetitionPenalty: null })).toEqual(plain);
      expect(draws({ temperature: 0.9, topP, topK: 4 })).toEqual(plain);
    }
  });
});
