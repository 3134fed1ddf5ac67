import { refCycle } from './source-schemas';

describe('refCycle', () => {
  it('finds a schema that refers to itself in place', () => {
    expect(refCycle({ type: 'object', $ref: '#' })).toBe('#');
  });

  it('finds a cycle through $defs', () => {
    expect(
      refCycle({
        type: 'object',
        $ref: '#/$defs/a',
        $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
      }),
    ).toBe('#/$defs/a');
  });

  it('finds a cycle through allOf and escaped pointers', () => {
    expect(
      refCycle({ allOf: [{ $ref: '#/definitions/a~1b' }], definitions: { 'a/b': { $ref: '#' } } }),
    ).toBe('#');
  });

  it('lets a recursion into a part of the value pass (a tree)', () => {
    expect(
      refCycle({
        type: 'object',
        properties: { children: { type: 'array', items: { $ref: '#' } } },
      }),
    ).toBeUndefined();
  });

  it('ignores $ref in data and refs it cannot resolve', () => {
    expect(
      refCycle({ const: { $ref: '#' }, properties: { a: { $ref: 'other.json#' } } }),
    ).toBeUndefined();
  });

  it('walks a long chain of $defs without recursion', () => {
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++) defs[`d${i}`] = { $ref: `#/$defs/d${i + 1}` };
    defs.d5000 = { $ref: '#/$defs/d0' };
    expect(refCycle({ $ref: '#/$defs/d0', $defs: defs })).toBe('#/$defs/d0');
  });
});
