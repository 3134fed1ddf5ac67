import { ValidationFailed } from '../errors/api-error';
import { queryInts } from './query';

describe('queryInts', () => {
  const spec = { limit: { min: 1, max: 10, default: 10 }, before: { min: 1, max: 99 } };

  it('parses decimal strings, fills defaults and ignores unknown parameters', () => {
    expect(queryInts({ limit: '3', other: 'x' }, spec)).toEqual({ limit: 3, before: undefined });
    expect(queryInts({}, spec)).toEqual({ limit: 10, before: undefined });
  });

  it('lists every problem at ["query", name] with pydantic types', () => {
    try {
      queryInts({ limit: '0', before: 'x' }, spec);
      throw new Error('not refused');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationFailed);
      expect((error as ValidationFailed).issues).toEqual([
        {
          loc: ['query', 'limit'],
          msg: 'Input should be greater than or equal to 1',
          type: 'greater_than_equal',
        },
        {
          loc: ['query', 'before'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          type: 'int_parsing',
        },
      ]);
    }
    expect(() => queryInts({ limit: ['1', '2'] }, spec)).toThrow(ValidationFailed);
    expect(() => queryInts({ limit: '11' }, spec)).toThrow(ValidationFailed);
  });
});
