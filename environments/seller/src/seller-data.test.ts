import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TurnGymError } from '@turngym/core';
import { loadPersonas, loadProducts, loadSellerData } from './seller-data';
import { SellerDataError } from './seller-data-error';
import {
  DEAL_BREAKER_KEYWORDS,
  NEED_KEYWORDS,
  OBJECTION_KEYWORDS,
  type DealBreakerTag,
  type ObjectionKind,
} from './vocabulary';

describe('the data shipped in data/', () => {
  const data = loadSellerData();

  it('has at least 20 products and 30 personas, each id once', () => {
    expect(data.products.length).toBeGreaterThanOrEqual(20);
    expect(data.personas.length).toBeGreaterThanOrEqual(30);
    expect(new Set(data.products.map((product) => product.id)).size).toBe(data.products.length);
    expect(new Set(data.personas.map((persona) => persona.id)).size).toBe(data.personas.length);
  });

  it('covers every temperament several times, with budgets below and above the prices', () => {
    const temperaments = new Map<string, number>();
    for (const persona of data.personas)
      temperaments.set(persona.temperament, (temperaments.get(persona.temperament) ?? 0) + 1);
    expect(temperaments.size).toBe(7);
    for (const count of temperaments.values()) expect(count).toBeGreaterThanOrEqual(4);
    expect(data.personas.some((persona) => persona.objections.some((objection) => objection.hidden))).toBe(true);
    expect(data.personas.filter((persona) => persona.dealBreakers.length > 0).length).toBeGreaterThanOrEqual(15);
  });

  // The seller-v1 classifier reads an utterance by these keywords, so the words the simulated executor takes
  // from the data must carry them: then the executor's sentences classify back as the moves that wrote them.
  it('words every selling point, answer and mitigation so that its need, objection or tag is recognised', () => {
    const problems: string[] = [];
    for (const product of data.products) {
      for (const point of product.sellingPoints) {
        if (!NEED_KEYWORDS[point.need].test(point.text))
          problems.push(`${product.id}: "${point.text}" does not read as ${point.need}`);
      }
      for (const [kind, text] of Object.entries(product.answers)) {
        if (!OBJECTION_KEYWORDS[kind as ObjectionKind].test(text as string))
          problems.push(`${product.id}: answer "${text}" does not read as ${kind}`);
      }
      for (const [tag, text] of Object.entries(product.mitigations)) {
        if (!DEAL_BREAKER_KEYWORDS[tag as DealBreakerTag].test(text as string))
          problems.push(`${product.id}: mitigation "${text}" does not read as ${tag}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('is shared and frozen: an env handing out a product cannot have it changed', () => {
    expect(loadSellerData()).toBe(data);
    expect(Object.isFrozen(data.products[0]?.sellingPoints[0])).toBe(true);
  });
});

describe('loading a data file validates it and names the file and the field', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'seller-data-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const write = (name: string, value: unknown): string => {
    const file = join(directory, name);
    writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };
  const product = loadSellerData().products[0] as object;
  const persona = loadSellerData().personas[0] as object;

  it.each([
    ['a missing field', [{ ...product, price: undefined }], /products\[0\]\.price is required/],
    [
      'an unknown need',
      [
        {
          ...product,
          sellingPoints: [
            { need: 'speed', text: 'fast' },
            { need: 'eco', text: 'eco' },
          ],
        },
      ],
      /products\[0\]\.sellingPoints\[0\]\.need must be one of: "portability"/,
    ],
    ['a negative price', [{ ...product, price: -3 }], /products\[0\]\.price must be > 0/],
    ['an extra field', [{ ...product, colour: 'red' }], /products\[0\] has unknown field "colour"/],
    ['a duplicate id', [product, product], /products\[1\]\.id "trail-backpack" is used twice/],
    [
      'a mitigation of an absent tag',
      [{ ...product, mitigations: { camera: 'no camera' } }],
      /products\[0\]\.mitigations\.camera defuses a tag the product does not have/,
    ],
  ])('products: %s', (_name, value, message) => {
    const file = write('products.json', value);
    let error: unknown;
    try {
      loadProducts(file);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(SellerDataError);
    expect(TurnGymError.isInstance(error) && error.code).toBe('INVALID_SELLER_DATA');
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toMatch(message);
  });

  it.each([
    [
      'a temperament outside the list',
      [{ ...persona, temperament: 'grumpy' }],
      /personas\[0\]\.temperament must be one of/,
    ],
    ['a need listed twice', [{ ...persona, needs: ['comfort', 'comfort'] }], /personas\[0\]\.needs/],
    [
      'an objection kind twice',
      [
        {
          ...persona,
          objections: [
            { kind: 'trust', hidden: true },
            { kind: 'trust', hidden: false },
          ],
        },
      ],
      /personas\[0\]\.objections lists a kind twice/,
    ],
    ['not JSON', '[{ "id": ', /not valid JSON/],
  ])('personas: %s', (_name, value, message) => {
    const file = write('personas.json', value);
    expect(() => loadPersonas(file)).toThrow(message);
    expect(() => loadPersonas(file)).toThrow(file);
  });

  it('a directory without the files names the missing one', () => {
    const empty = mkdtempSync(join(tmpdir(), 'seller-empty-'));
    try {
      expect(() => loadSellerData(empty)).toThrow(/products\.json: cannot read the file \(ENOENT\)/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
