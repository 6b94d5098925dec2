import { InvalidToolSchemaError } from '@turngym/core';
import { toErrorData } from './error-mapping';

describe('toErrorData', () => {
  it('reports an env whose tool schema cannot be compiled as a FACTORY_ERROR (the env could not be built)', () => {
    const data = toErrorData(new InvalidToolSchemaError('test/x-v1', 'files.read', 'schema is invalid'));
    expect(data).toMatchObject({ code: 'FACTORY_ERROR', turngym_code: 'INVALID_TOOL_SCHEMA' });
    expect(data.message).toMatch(/tool "files\.read" has a parameters schema that cannot be compiled/);
  });
});
