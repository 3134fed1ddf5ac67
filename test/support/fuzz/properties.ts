/** The requests each fuzz property sends, as fast-check arbitraries. */
import fc from 'fast-check';
import { BodyEncoding, bodyFor, compress, mcpBody, ZIP_BOMBS } from './bodies';
import { cut, FuzzRequest } from './client';
import { CONTENT_TYPES, headerSet } from './headers';
import { BODY_ROUTES, JUNK_METHODS, MCP_ACCEPT, METHODS, ROUTES, target } from './requests';

/** Every route, with any method and up to three broken path segments. */
export function routeRequests(
  admin: () => [string, string][],
  keyIds: fc.Arbitrary<string>,
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...METHODS) },
        { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'PURGE', 'SEARCH') },
      ),
      target: target(ROUTES, keyIds),
      auth: fc.boolean(),
      body: fc.option(fc.constantFrom('{}', '{"name":"A"}'), { freq: 4 }),
    })
    .map(({ method, target: path, auth, body }): FuzzRequest => ({
      method,
      target: path,
      headers: [
        ...(auth ? admin() : []),
        ...(body !== null ? ([['Content-Type', 'application/json']] as [string, string][]) : []),
      ],
      body: body ?? undefined,
    }));
}

/** Any set of headers, on every route (the static files three times over). */
export function headerRequests(adminKey: string, victimId: string): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof(
        { weight: 3, arbitrary: fc.constant('GET') },
        { weight: 4, arbitrary: fc.constantFrom(...METHODS) },
      ),
      // Static files count three times: Range and conditional headers only matter there.
      target: fc
        .constantFrom(...ROUTES.flatMap((r) => (r[0] === 'docs' && r.length > 1 ? [r, r, r] : [r])))
        .map((route) => `/${route.map((s) => (s === ':id' ? victimId : s)).join('/')}`),
      headers: headerSet(adminKey),
      body: fc.option(
        fc.constantFrom(
          '{}',
          '{"name":"A"}',
          '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
          'x',
        ),
        { freq: 2 },
      ),
      chunked: fc.boolean(),
    })
    .map(({ body, ...rest }): FuzzRequest => ({ ...rest, body: body ?? undefined }));
}

/** Any body on the routes that read one: its own kind of body mostly, encoded or compressed. */
export function bodyRequests(
  admin: () => [string, string][],
  victimId: string,
): fc.Arbitrary<FuzzRequest> {
  const encoding = fc.oneof(
    { weight: 8, arbitrary: fc.constant<BodyEncoding>('utf8') },
    { weight: 1, arbitrary: fc.constantFrom<BodyEncoding>('latin1', 'gzip', 'deflate') },
  );
  return fc
    .record({
      method: fc.oneof(
        { weight: 5, arbitrary: fc.constant('POST') },
        { weight: 1, arbitrary: fc.constantFrom('PATCH', 'PUT', 'DELETE') },
      ),
      routed: fc.constantFrom(...BODY_ROUTES).chain((route) =>
        fc.tuple(
          fc.constant(route),
          fc.constantFrom('', '', '', '/'),
          fc.oneof(
            { weight: 30, arbitrary: fc.tuple(bodyFor(route), encoding) },
            {
              weight: 1,
              arbitrary: fc.tuple(
                fc.constantFrom(...ZIP_BOMBS),
                fc.constantFrom<BodyEncoding>('gzip', 'deflate'),
              ),
            },
          ),
        ),
      ),
      contentType: fc.oneof(
        { weight: 6, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      ),
      auth: fc.oneof(
        { weight: 5, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
      chunked: fc.boolean(),
    })
    .map(({ method, routed, contentType, auth, chunked }): FuzzRequest => {
      const [route, slash, [body, bodyEncoding]] = routed;
      const path = `/${route.map((s) => (s === ':id' ? victimId : s)).join('/')}${slash}`;
      const headers: [string, string][] = [
        ...(auth ? admin() : []),
        ['Content-Type', contentType],
        ...(path.startsWith('/mcp') ? MCP_ACCEPT : []),
      ];
      if (bodyEncoding === 'utf8' || bodyEncoding === 'latin1') {
        return {
          method,
          target: path,
          headers,
          body,
          chunked,
          latin1: bodyEncoding === 'latin1',
        };
      }
      return {
        method,
        target: path,
        headers: [...headers, ['Content-Encoding', bodyEncoding]],
        body: compress(body, bodyEncoding),
        latin1: true,
        chunked,
        note: `body is the ${bodyEncoding} of ${cut(JSON.stringify(body), 300)}`,
      };
    });
}

/** Any JSON-RPC on /mcp, with any Accept. */
export function mcpRequests(admin: () => [string, string][]): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      accept: fc.oneof(
        { weight: 6, arbitrary: fc.constant('application/json, text/event-stream') },
        {
          weight: 1,
          arbitrary: fc.constantFrom('application/json', 'text/event-stream', '*/*', 'junk'),
        },
      ),
      body: mcpBody(),
    })
    .map(({ accept, body }): FuzzRequest => ({
      method: 'POST',
      target: '/mcp',
      headers: [...admin(), ['Content-Type', 'application/json'], ['Accept', accept]],
      body,
    }));
}

/** Bytes Node's HTTP parser refuses: junk methods, raw characters, bad versions and headers. */
export function parserRequests(victimId: string): fc.Arbitrary<FuzzRequest> {
  const rawChar = fc.constantFrom(
    '\x00',
    '\x01',
    '\x7f',
    ' ',
    '\t',
    '\x80',
    '\xff',
    '"',
    '<',
    '{',
    '|',
    '\\',
    '^',
    '`',
    '\x1b',
  );
  return fc
    .record({
      method: fc.oneof(
        { withCrossShrink: true },
        { weight: 3, arbitrary: fc.constantFrom('GET', 'POST') },
        { weight: 2, arbitrary: fc.constantFrom(...JUNK_METHODS) },
      ),
      target: fc.oneof(
        { withCrossShrink: true },
        { weight: 3, arbitrary: target(ROUTES, fc.constant(victimId)) },
        {
          weight: 3,
          arbitrary: fc
            .tuple(target(ROUTES, fc.constant(victimId)), rawChar, fc.nat())
            .map(([path, c, at]) => {
              const i = 1 + (at % path.length);
              return path.slice(0, i) + c + path.slice(i);
            }),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '*',
            'http://127.0.0.1/health',
            'health',
            '',
            '//',
            `/${'a'.repeat(20000)}`,
            '/%00',
            '/\u00e9',
          ),
        },
      ),
      version: fc.oneof(
        { withCrossShrink: true },
        { weight: 8, arbitrary: fc.constant('HTTP/1.1') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'HTTP/1.0',
            'HTTP/2.0',
            'HTTP/1.1 x',
            'HTTP/1',
            'http/1.1',
            'HTTP/9.9',
          ),
        },
      ),
      headers: fc.array(
        fc.oneof(
          fc.tuple(
            fc.constantFrom('X-A', 'Authorization', 'Content-Type', 'X-Request-Id'),
            fc.tuple(fc.string({ maxLength: 10 }), rawChar).map(([s, c]) => s + c + s),
          ),
          fc.constantFrom<[string, string]>(
            ['bad header', 'x'],
            ['(x)', 'y'],
            ['', 'empty name'],
            ['Content-Length', 'abc'],
            ['Content-Length', '-1'],
            ['Transfer-Encoding', 'gzip'],
            ['Transfer-Encoding', 'chunked, identity'],
            ['Host', 'second.example'],
            ['X-Fold', 'a\r\n folded'],
            ['X-Big', 'b'.repeat(20000)],
            ['Upgrade', 'h2c'],
            ['Expect', 'junk'],
            ['Content-Length', '5\r\nContent-Length: 6'],
          ),
        ),
        { maxLength: 3 },
      ),
      noHost: fc.oneof(
        { weight: 9, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      latin1: fc.boolean(),
    })
    .map((r): FuzzRequest => r);
}
