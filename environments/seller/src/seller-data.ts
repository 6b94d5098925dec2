import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ajv, describeErrors } from '@turngym/core';
import { SellerDataError } from './seller-data-error';
import {
  DEAL_BREAKER_TAGS,
  NEEDS,
  OBJECTION_KINDS,
  TEMPERAMENTS,
  type DealBreakerTag,
  type Need,
  type ObjectionKind,
  type Temperament,
} from './vocabulary';

export interface SellingPoint {
  /** The buyer need it serves. */
  readonly need: Need;
  /** A clause the executor says ("it weighs only 900 grams"). */
  readonly text: string;
}

export interface Weakness {
  /** The objection it raises with a buyer whose needs clash with it (see OBJECTION_CLASHES). */
  readonly objection: ObjectionKind;
  readonly text: string;
}

export interface Product {
  readonly id: string;
  readonly name: string;
  readonly category: string;
  /** In dollars. */
  readonly price: number;
  /** One clause: what it is ("a 30-litre hiking backpack that weighs 900 g"). */
  readonly summary: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** In the order a seller who knows nothing about the buyer would pitch them. */
  readonly sellingPoints: readonly SellingPoint[];
  readonly weaknesses: readonly Weakness[];
  /** The honest answer to each objection the product can meet; an objection without one cannot be resolved by answering. */
  readonly answers: Readonly<Partial<Record<ObjectionKind, string>>>;
  /** Attributes a buyer may refuse outright (hidden deal-breakers). */
  readonly tags: readonly DealBreakerTag[];
  /** What defuses a tag, where something does ("the subscription is optional"). */
  readonly mitigations: Readonly<Partial<Record<DealBreakerTag, string>>>;
  /** Days of a money-back trial; 0 for none. */
  readonly trialDays: number;
  readonly reviews: { readonly rating: number; readonly count: number };
}

export interface PersonaObjection {
  readonly kind: ObjectionKind;
  /** Voiced only when asked (ask-doubts) or when pressed, not spontaneously. */
  readonly hidden: boolean;
}

export interface Persona {
  readonly id: string;
  readonly name: string;
  readonly age: number;
  readonly occupation: string;
  /** What the seller sees (public, in the first observation); hints at the temperament. */
  readonly appearance: string;
  readonly temperament: Temperament;
  /** Initial purchase propensity before any product fit, 0–1. */
  readonly openness: number;
  /** Dollars they would spend on the spot without a second thought. */
  readonly budget: number;
  /** Hidden needs, most important first. */
  readonly needs: readonly Need[];
  /** How they would use such a product ("on my commute"), revealed by ask-scenario. */
  readonly scenario: string;
  readonly objections: readonly PersonaObjection[];
  /** Hidden: product tags they refuse unless defused. */
  readonly dealBreakers: readonly DealBreakerTag[];
  /** How they talk, for an LLM buyer. */
  readonly style: string;
}

const textSchema = { type: 'string', minLength: 1, maxLength: 400 } as const;
const idSchema = { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' } as const;

function keyed(keys: readonly string[]): object {
  return {
    type: 'object',
    additionalProperties: false,
    required: [],
    properties: Object.fromEntries(keys.map((key) => [key, textSchema])),
  };
}

export const productSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'name',
    'category',
    'price',
    'summary',
    'attributes',
    'sellingPoints',
    'weaknesses',
    'answers',
    'tags',
    'mitigations',
    'trialDays',
    'reviews',
  ],
  properties: {
    id: idSchema,
    name: textSchema,
    category: textSchema,
    price: { type: 'number', exclusiveMinimum: 0, maximum: 100000 },
    summary: textSchema,
    attributes: { type: 'object', required: [], additionalProperties: textSchema, minProperties: 1 },
    sellingPoints: {
      type: 'array',
      minItems: 2,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['need', 'text'],
        properties: { need: { type: 'string', enum: NEEDS }, text: textSchema },
      },
    },
    weaknesses: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['objection', 'text'],
        properties: { objection: { type: 'string', enum: OBJECTION_KINDS }, text: textSchema },
      },
    },
    answers: keyed(OBJECTION_KINDS),
    tags: { type: 'array', uniqueItems: true, items: { type: 'string', enum: DEAL_BREAKER_TAGS } },
    mitigations: keyed(DEAL_BREAKER_TAGS),
    trialDays: { type: 'integer', minimum: 0, maximum: 365 },
    reviews: {
      type: 'object',
      additionalProperties: false,
      required: ['rating', 'count'],
      properties: { rating: { type: 'number', minimum: 1, maximum: 5 }, count: { type: 'integer', minimum: 0 } },
    },
  },
} as const;

export const personaSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'name',
    'age',
    'occupation',
    'appearance',
    'temperament',
    'openness',
    'budget',
    'needs',
    'scenario',
    'objections',
    'dealBreakers',
    'style',
  ],
  properties: {
    id: idSchema,
    name: textSchema,
    age: { type: 'integer', minimum: 16, maximum: 100 },
    occupation: textSchema,
    appearance: textSchema,
    temperament: { type: 'string', enum: TEMPERAMENTS },
    openness: { type: 'number', minimum: 0, maximum: 1 },
    budget: { type: 'number', exclusiveMinimum: 0 },
    needs: { type: 'array', minItems: 1, maxItems: 4, uniqueItems: true, items: { type: 'string', enum: NEEDS } },
    scenario: textSchema,
    objections: {
      type: 'array',
      maxItems: 4,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'hidden'],
        properties: { kind: { type: 'string', enum: OBJECTION_KINDS }, hidden: { type: 'boolean' } },
      },
    },
    dealBreakers: { type: 'array', uniqueItems: true, items: { type: 'string', enum: DEAL_BREAKER_TAGS } },
    style: textSchema,
  },
} as const;

const validateProducts = ajv.compile({ type: 'array', minItems: 1, items: productSchema });
const validatePersonas = ajv.compile({ type: 'array', minItems: 1, items: personaSchema });

/** The directory of the data shipped with the package (`data/`, beside `src/` and `dist/`). */
export const DEFAULT_DATA_DIR = resolve(__dirname, '..', 'data');

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SellerDataError(
      file,
      [`cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`],
      error,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SellerDataError(file, [`not valid JSON (${(error as Error).message})`], error);
  }
}

function duplicates(ids: readonly string[], base: string): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  ids.forEach((id, index) => {
    if (seen.has(id)) problems.push(`${base}[${index}].id "${id}" is used twice`);
    seen.add(id);
  });
  return problems;
}

/** Reads and validates a products file: an array of `Product`; errors name the file and the field. */
export function loadProducts(file: string): Product[] {
  const data = readJson(file);
  if (!validateProducts(data)) throw new SellerDataError(file, describeErrors(validateProducts.errors, 'products'));
  const products = data as Product[];
  const problems = duplicates(
    products.map((product) => product.id),
    'products',
  );
  products.forEach((product, index) => {
    for (const tag of Object.keys(product.mitigations)) {
      if (!product.tags.includes(tag as DealBreakerTag))
        problems.push(
          `products[${index}].mitigations.${tag} defuses a tag the product does not have (tags: ${product.tags.join(', ') || 'none'})`,
        );
    }
  });
  if (problems.length > 0) throw new SellerDataError(file, problems);
  return products;
}

/** Reads and validates a personas file: an array of `Persona`; errors name the file and the field. */
export function loadPersonas(file: string): Persona[] {
  const data = readJson(file);
  if (!validatePersonas(data)) throw new SellerDataError(file, describeErrors(validatePersonas.errors, 'personas'));
  const personas = data as Persona[];
  const problems = duplicates(
    personas.map((persona) => persona.id),
    'personas',
  );
  personas.forEach((persona, index) => {
    const kinds = persona.objections.map((objection) => objection.kind);
    if (new Set(kinds).size !== kinds.length) problems.push(`personas[${index}].objections lists a kind twice`);
  });
  if (problems.length > 0) throw new SellerDataError(file, problems);
  return personas;
}

export interface SellerData {
  readonly products: readonly Product[];
  readonly personas: readonly Persona[];
  readonly directory: string;
}

const cache = new Map<string, SellerData>();

/** Data objects are shared by every env (and handed out in info.product): nobody may change them. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** `products.json` and `personas.json` of a directory, validated once per process and shared (read-only). */
export function loadSellerData(directory: string = DEFAULT_DATA_DIR): SellerData {
  const key = resolve(directory);
  let data = cache.get(key);
  if (!data) {
    data = deepFreeze({
      products: loadProducts(join(key, 'products.json')),
      personas: loadPersonas(join(key, 'personas.json')),
      directory: key,
    });
    cache.set(key, data);
  }
  return data;
}
