import { defineOptions } from './options';
import { compileValidator } from './schema-validation';

const makeError = (problems: string[]): Error => new Error(problems.join('; '));

describe('compileValidator', () => {
  const recordSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'steps'],
    properties: {
      id: { type: 'string' },
      steps: { type: 'array', items: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } },
      extra: {},
    },
  };

  it('checks a large input without copying it when the schema fills no defaults', () => {
    const validate = compileValidator<{ id: string; steps: { text: string }[] }>(recordSchema, makeError, 'record');
    const record = { id: 'e1', steps: Array.from({ length: 1000 }, (_, i) => ({ text: `step ${i}` })) };
    const before = JSON.stringify(record);
    const checked = validate(record);
    expect(checked).toBe(record);
    expect(JSON.stringify(record)).toBe(before);
    expect(() => validate({ id: 'e1', steps: [{ text: 5 }] })).toThrow('record.steps[0].text must be string (got 5)');
  });

  it("fills defaults into a copy, never into the caller's object (guard)", () => {
    const validate = compileValidator<{ name: string; size?: number }>(
      {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: { name: { type: 'string' }, size: { type: 'integer', default: 3 } },
      },
      makeError,
    );
    const input = { name: 'x' };
    expect(validate(input)).toEqual({ name: 'x', size: 3 });
    expect(input).toEqual({ name: 'x' });
  });

  it('still copies where a property is named "default" (guard)', () => {
    const named = compileValidator<Record<string, unknown>>(
      { type: 'object', properties: { default: { type: 'string' } } },
      makeError,
    );
    const input = { default: 'a' };
    expect(named(input)).toEqual(input);
    expect(named(input)).not.toBe(input);
  });

  it('refuses a function anywhere in the input, naming the field, with or without defaults (guard)', () => {
    const validate = compileValidator(recordSchema, makeError, 'record');
    expect(() => validate({ id: 'e1', steps: [], extra: { hook: () => 1 } })).toThrow(
      'record.extra.hook must be data, not a function',
    );
  });

  it("keeps options a copy even without defaults: later changes to the caller's object do not reach them (guard)", () => {
    const validate = defineOptions<{ size?: number }>('test', {
      type: 'object',
      additionalProperties: false,
      properties: { size: { type: 'integer', nullable: true } },
    });
    const input = { size: 2 };
    const options = validate(input);
    input.size = 5;
    expect(options).toEqual({ size: 2 });
  });

  describe('input nested deeper than the stack (JSON.parse reads any depth)', () => {
    const deep = (levels: number): unknown => {
      let value: unknown = [];
      for (let level = 0; level < levels; level += 1) value = [value];
      return value;
    };
    const input = { x: deep(100_000) };
    const cases: [string, object, 'to-fill-defaults' | 'always'][] = [
      ['a schema with defaults', { type: 'object', properties: { a: { default: 1 } } }, 'to-fill-defaults'],
      ['options (always copied)', { type: 'object' }, 'always'],
      ['a recursive schema without defaults', { type: 'array', items: { $ref: '#' } }, 'to-fill-defaults'],
      ['a field whose type is wrong', { type: 'object', properties: { x: { type: 'string' } } }, 'to-fill-defaults'],
    ];

    it.each(cases)('%s: refused naming the field, not a bare RangeError', (_, schema, copy) => {
      const validate = compileValidator(schema, makeError, 'options', copy);
      const value = (schema as { type: string }).type === 'array' ? input.x : input;
      let thrown: unknown;
      try {
        validate(value);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect((thrown as Error).name).not.toBe('RangeError');
      if ((schema as { properties?: { x?: unknown } }).properties?.x) {
        expect((thrown as Error).message).toContain('options.x must be string');
      } else {
        expect((thrown as Error).message).toMatch(/^options(\.x|\[0\])? is nested too deeply \(10000[01] levels\)/);
      }
    });
  });
});
