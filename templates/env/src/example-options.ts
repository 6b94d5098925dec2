import { defineOptions, type JSONSchemaType } from '@turngym/core';

/** Options of `turngym/example-v1`. Type and schema side by side so they cannot drift. */
export interface ExampleOptions {
  /** How many keys the store holds (the chain plus decoys). */
  keys: number;
  /** How many lookups lead from the start key to the code. */
  chainLength: number;
  /** Turn limit. */
  maxTurns: number;
}

export const exampleOptionsSchema: JSONSchemaType<ExampleOptions> = {
  type: 'object',
  additionalProperties: false,
  required: [],
  properties: {
    keys: { type: 'integer', minimum: 2, maximum: 500, default: 12 },
    chainLength: { type: 'integer', minimum: 1, maximum: 20, default: 3 },
    maxTurns: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
  },
};

export const validateExampleOptions = defineOptions<ExampleOptions>('turngym/example-v1', exampleOptionsSchema);
