import { jsonDeeperThan } from './json-depth';

const deeper = (text: string, limit: number) => jsonDeeperThan(Buffer.from(text), limit);

describe('jsonDeeperThan', () => {
  it('counts objects and arrays alike', () => {
    expect(deeper('[[{"a":[1]}]]', 4)).toBe(false);
    expect(deeper('[[{"a":[1]}]]', 3)).toBe(true);
  });

  it('reads brackets inside strings, escaped quotes included, as text', () => {
    expect(deeper('{"a":"[[[[\\"[[[["}', 1)).toBe(false);
    expect(deeper('["\\\\",[[]]]', 2)).toBe(true);
  });

  it('stops at the first level past the limit of an unterminated body', () => {
    expect(deeper('['.repeat(1_000_000), 32)).toBe(true);
  });

  it('takes flat text and scalars', () => {
    expect(deeper(JSON.stringify('x'.repeat(1000)), 0)).toBe(false);
    expect(deeper('42', 0)).toBe(false);
  });
});
