/** Argument checks shared by the math: errors name the arrays so a trainer's bug is found from the message. */

export type Numbers = ArrayLike<number>;

export function assertSameLength(what: string, arrays: Record<string, Numbers>): number {
  const entries = Object.entries(arrays);
  const [firstName, first] = entries[0] as [string, Numbers];
  for (const [name, array] of entries.slice(1)) {
    if (array.length !== first.length) {
      const lengths = entries.map(([n, a]) => `${n} has ${a.length}`).join(', ');
      throw new RangeError(`${what}: ${name} and ${firstName} must have the same length (${lengths}).`);
    }
  }
  return first.length;
}

export function assertFinite(what: string, name: string, values: Numbers): void {
  for (let index = 0; index < values.length; index += 1) {
    if (!Number.isFinite(values[index])) {
      throw new RangeError(
        `${what}: ${name}[${index}] is ${String(values[index])}; every value must be a finite number.`,
      );
    }
  }
}

/** A loss mask is 0/1; anything else is almost always a mask built from the wrong array. */
export function assertBinaryMask(what: string, name: string, mask: Numbers): number {
  let count = 0;
  for (let index = 0; index < mask.length; index += 1) {
    const value = mask[index];
    if (value !== 0 && value !== 1) {
      throw new RangeError(`${what}: ${name}[${index}] is ${String(value)}; a loss mask holds only 0 and 1.`);
    }
    count += value;
  }
  return count;
}
