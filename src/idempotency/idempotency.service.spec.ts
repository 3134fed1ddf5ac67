import { canonicalJson, fingerprint, IDEMPOTENCY_KEY_PATTERN } from './idempotency.service';

describe('idempotency identity', () => {
  it('writes objects with sorted keys at every depth, arrays in order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[2,{"y":null,"z":1}]},"b":1}',
    );
  });

  it('gives the same fingerprint to the same request however its keys are ordered; none is {}', () => {
    expect(fingerprint({ name: 'Ada', shout: true })).toBe(
      fingerprint({ shout: true, name: 'Ada' }),
    );
    expect(fingerprint(undefined)).toBe(fingerprint({}));
    expect(fingerprint({ name: 'Ada' })).not.toBe(fingerprint({ name: 'Bob' }));
  });

  it('takes 1 to 255 visible ASCII characters', () => {
    expect(IDEMPOTENCY_KEY_PATTERN.test('a')).toBe(true);
    expect(IDEMPOTENCY_KEY_PATTERN.test('~'.repeat(255))).toBe(true);
    for (const bad of ['', ' ', 'a b', 'é', 'x'.repeat(256), 'tab\t']) {
      expect(IDEMPOTENCY_KEY_PATTERN.test(bad)).toBe(false);
    }
  });
});
