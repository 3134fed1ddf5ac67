/** The fuzz suite's header generators: content types and whole header sets. */
import fc from 'fast-check';
import { PROTO_KEYS, unicodeText } from './requests';

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset="utf-8"',
  'application/json;;;',
  'application/x+json',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '*/*',
  '',
  ';',
  'json',
  'application/json\u00ff',
];

/** A header value without the control characters that would end or break the header line. */
export function withoutControls(text: string): string {
  return [...text].filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f).join('');
}

export function headerSet(adminKey: string): fc.Arbitrary<[string, string][]> {
  const bearer = `Bearer ${adminKey}`;
  const visible = fc.string({ unit: 'binary-ascii', maxLength: 80 }).map(withoutControls);
  const authorization = fc.oneof(
    { withCrossShrink: true },
    { weight: 4, arbitrary: fc.constant<[string, string][]>([['Authorization', bearer]]) },
    { weight: 2, arbitrary: fc.constant<[string, string][]>([]) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, string][]>(
        [['authorization', `bearer ${adminKey}`]],
        [['Authorization', `Bearer  ${adminKey}\t`]],
        [['Authorization', `${bearer}x`]],
        [['Authorization', 'Bearer sk_' + '0'.repeat(64)]],
        [['Authorization', 'Bearer']],
        [['Authorization', 'Bearer ']],
        [['Authorization', 'Basic YTpi']],
        [['Authorization', `Bearer ${'x'.repeat(8000)}`]],
        [['Authorization', 'Bearer \u00e9\u00e9']],
        [
          ['Authorization', bearer],
          ['Authorization', bearer],
        ],
        [
          ['Authorization', bearer],
          ['Authorization', 'Bearer junk'],
        ],
        [['Authorization', `${bearer}, ${bearer}`]],
      ),
    },
    { weight: 1, arbitrary: visible.map<[string, string][]>((v) => [['Authorization', v]]) },
  );
  const optional = (name: string, values: fc.Arbitrary<string>, weight = 3) =>
    fc.oneof(
      { withCrossShrink: true },
      { weight, arbitrary: fc.constant<[string, string][]>([]) },
      { weight: 1, arbitrary: values.map<[string, string][]>((v) => [[name, v]]) },
    );
  const junkName = fc.oneof(
    fc.constantFrom(
      ...PROTO_KEYS,
      'x-forwarded-for',
      'forwarded',
      'x-http-method-override',
      'cookie',
      'range',
      'if-none-match',
      'accept-encoding',
      'transfer-encoding',
    ),
    fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
  );
  return fc
    .tuple(
      authorization,
      optional('Content-Type', fc.oneof(fc.constantFrom(...CONTENT_TYPES), visible), 1),
      optional(
        'Content-Encoding',
        fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'junk', 'GZIP'),
      ),
      optional(
        'X-Request-Id',
        fc.oneof(visible, unicodeText(20).map(withoutControls), fc.constant('r'.repeat(5000))),
      ),
      optional(
        'Origin',
        fc.oneof(
          fc.constantFrom(
            'https://agent.example',
            'https://AGENT.example:443',
            'null',
            'http://%zz',
            'https://evil.example',
            '*',
            '',
          ),
          visible,
        ),
      ),
      optional(
        'Accept',
        fc.oneof(
          fc.constantFrom(
            'application/json, text/event-stream',
            'text/event-stream',
            '*/*',
            'application/xml',
            '',
          ),
          visible,
        ),
        2,
      ),
      optional(
        'Access-Control-Request-Method',
        fc.constantFrom('POST', 'DELETE', 'junk', '', 'GET, POST'),
      ),
      optional(
        'Access-Control-Request-Headers',
        fc.constantFrom('authorization, content-type', 'x-junk', '', ',,,', 'a'.repeat(3000)),
      ),
      optional('Idempotency-Key', fc.oneof(visible, fc.constant('k'.repeat(300)))),
      optional('Expect', fc.constantFrom('100-continue', 'junk')),
      optional(
        'Range',
        fc.constantFrom(
          'bytes=0-1',
          'bytes=999999999-',
          'bytes=-0',
          'bytes=1-0',
          'bytes=0-0,'.repeat(200) + '1-1',
          'items=0-1',
          'junk',
        ),
        1,
      ),
      optional('If-None-Match', fc.constantFrom('*', '"x"', 'W/"junk', '')),
      optional('If-Match', fc.constantFrom('*', '"x"', 'W/"junk', '')),
      optional('If-Unmodified-Since', fc.constantFrom('Thu, 01 Jan 1970 00:00:00 GMT', 'junk', '')),
      optional('If-Range', fc.constantFrom('"x"', 'Thu, 01 Jan 1970 00:00:00 GMT', 'junk')),
      fc.array(fc.tuple(junkName, visible), { maxLength: 3 }),
    )
    .map(([auth, ...rest]) => [...auth, ...rest.flat()]);
}
