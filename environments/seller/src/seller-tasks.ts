import { mixSeed } from '@turngym/core';
import type { Persona, Product, SellerData } from './seller-data';

export type SellerSplit = 'train' | 'test' | 'all';

/** One task: a persona meets a salesperson selling a product. */
export interface SellerTask {
  /** `<persona id>@<product id>` */
  readonly id: string;
  readonly persona: Persona;
  readonly product: Product;
}

/**
 * A pair is a task when the buyer could afford the product at all: price ≤ MAX_PRICE_RATIO × budget. Above
 * that no seller can close, whatever they say, and the pair would only add a constant to every policy.
 */
export const MAX_PRICE_RATIO = 1.6;

/** One persona in HOLD_OUT_MODULUS (and one product) is held out for `test`, chosen by a hash of its id. */
export const HOLD_OUT_MODULUS = 5;

/**
 * Held out for `test`: decided by the id alone (an FNV-1a hash), so adding a persona or a product never
 * moves another one across the split.
 */
export function isHeldOut(id: string): boolean {
  return (mixSeed('turngym/seller split', id) >>> 0) % HOLD_OUT_MODULUS === 0;
}

export interface SellerTaskSet {
  readonly split: SellerSplit;
  readonly tasks: readonly SellerTask[];
  /** Persona and product ids that occur only in `test`. */
  readonly heldOutPersonas: readonly string[];
  readonly heldOutProducts: readonly string[];
}

/**
 * persona × product tasks, split disjointly: `test` holds every affordable pair with a held-out persona or a
 * held-out product, `train` every pair of two seen ones. So each test task meets at least one persona or
 * product never seen in training.
 */
export function buildTaskSet(data: SellerData, split: SellerSplit): SellerTaskSet {
  const heldOutPersonas = data.personas.filter((persona) => isHeldOut(persona.id)).map((persona) => persona.id);
  const heldOutProducts = data.products.filter((product) => isHeldOut(product.id)).map((product) => product.id);
  const tasks: SellerTask[] = [];
  for (const persona of data.personas) {
    for (const product of data.products) {
      if (product.price > MAX_PRICE_RATIO * persona.budget) continue;
      const test = heldOutPersonas.includes(persona.id) || heldOutProducts.includes(product.id);
      if (split === 'all' || (split === 'test') === test)
        tasks.push({ id: `${persona.id}@${product.id}`, persona, product });
    }
  }
  return Object.freeze({ split, tasks: Object.freeze(tasks), heldOutPersonas, heldOutProducts });
}

/** The task a seed plays when reset names none: a hash of the seed modulo the number of tasks. */
export function taskIndexForSeed(seed: number, size: number): number {
  return (mixSeed('turngym/seller task', seed) >>> 0) % size;
}
