import { decodeCursor, encodeCursor } from './key-cursor';
import { nextLink } from '../kernel/http/page-cursor';

describe('key list cursor', () => {
  const at = { created_at: '2025-01-01T00:00:00.000Z', id: 'key_3f2a9c1d0b7e6a54' };

  it('decodes what it encodes', () => {
    expect(decodeCursor(encodeCursor(at))).toEqual(at);
    expect(nextLink('/p', 2, 'abc')).toBe('</p?limit=2&cursor=abc>; rel="next"');
  });

  it('carries the filters a list was asked with into its next link, leaving out those not set', () => {
    expect(nextLink('/p', 2, 'abc', { status: 'succeeded', tool: undefined })).toBe(
      '</p?limit=2&cursor=abc&status=succeeded>; rel="next"',
    );
  });

  it('refuses anything the service would not have issued', () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const bad of [
      '',
      'not base64!',
      b64(['2025-01-01', 'key_3f2a9c1d0b7e6a54']),
      b64([at.created_at, 'key_x']),
      b64({ created_at: at.created_at, id: at.id }),
      b64([at.created_at, at.id, 1]),
      ['a'],
    ]) {
      expect(decodeCursor(bad)).toBeNull();
    }
  });
});
