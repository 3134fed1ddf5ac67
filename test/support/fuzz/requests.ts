/** The fuzz suite's request generators: routes, methods, broken paths and the words they use. */
import fc from 'fast-check';

export const MCP_ACCEPT: [string, string][] = [['Accept', 'application/json, text/event-stream']];
export const TOOLS = ['greet', 'config_show', 'config_get', 'config_set', 'doctor'];
/** `:id` is replaced by a key id (never the admin key's own). */
export const ROUTES: string[][] = [
  [],
  ['health'],
  ['api', 'v1', 'health'],
  ['health', 'live'],
  ['health', 'ready'],
  ['metrics'],
  ['openapi.json'],
  ['docs'],
  ['docs', 'swagger-ui.css'],
  ['docs', 'swagger-ui-init.js'],
  ['api', 'v1', 'services'],
  ...TOOLS.map((tool) => ['api', 'v1', 'services', tool]),
  ['api', 'v1', 'auth', 'me'],
  ['api', 'v1', 'auth', 'api-keys'],
  ['api', 'v1', 'auth', 'api-keys', ':id'],
  ['api', 'v1', 'auth', 'api-keys', ':id', 'rotate'],
  ['api', 'v1', 'auth', 'api-keys', ':id', 'usage'],
  ['api', 'v1', 'usage'],
  ['api', 'v1', 'audit'],
  ['mcp'],
];
export const BODY_ROUTES: string[][] = [
  ...TOOLS.map((tool) => ['api', 'v1', 'services', tool]),
  ['api', 'v1', 'auth', 'api-keys'],
  ['api', 'v1', 'auth', 'api-keys', ':id'],
  ['mcp'],
];
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
/** Methods Node's parser may know or refuse, and tokens that are no method at all. */
export const JUNK_METHODS = [
  'TRACE',
  'CONNECT',
  'PROPFIND',
  'PURGE',
  'M-SEARCH',
  'QUERY',
  'SEARCH',
  'PRI',
  'get',
  'Post',
  'FOO',
  'X'.repeat(64),
  'GET\x00',
  'G(T',
];
export const BAD_PERCENT = [
  '%',
  '%Z',
  '%ZZ',
  '%E0%A4',
  '%E0%A4%A',
  '%00',
  '%C0%AF',
  '%FF',
  '%%',
  '%u0041',
  '%2',
  '%2F',
  '%2e%2e',
  '%ED%A0%80',
  '%F4%90%80%80',
];
export const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
];
export const HOSTILE_CONFIG_KEYS = [
  '__proto__',
  '__proto__.polluted',
  'constructor.prototype.polluted',
  'logging.__proto__.polluted',
  'logging.constructor',
  'llm_config.__proto__',
  'logging.level.__proto__',
  'hasOwnProperty',
  'toString',
  'logging.hasownproperty',
  'prototype',
  'Logging.Level',
  'logging..level',
  '.logging',
  'logging.level.',
  'logging',
  'server',
  'x'.repeat(201),
  'a.'.repeat(100) + 'a',
];
export const CONFIG_KEYS = [
  'logging',
  'logging.level',
  'logging.verbose',
  'server',
  'server.port',
  'server.host',
  'llm_config',
  'llm_config.api_key',
  'llm_config.cache_dir',
  'nope',
  ...HOSTILE_CONFIG_KEYS,
];

export const unicodeText = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'binary-ascii', maxLength }),
  );

/** One way to break a path segment. */
export const segmentEdit: fc.Arbitrary<(segment: string) => string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom(...BAD_PERCENT), fc.nat())
      .map(([bad, at]) => (s: string) => {
        const i = at % (s.length + 1);
        return s.slice(0, i) + bad + s.slice(i);
      }),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(...BAD_PERCENT),
        fc.constantFrom('', '.', '..', '%2e', ';', ';a=b', '~', '*', '%20', '+'),
        unicodeText(20).map(encodeURIComponent),
      )
      .map((value) => () => value),
  },
  { weight: 1, arbitrary: fc.constant((s: string) => s.toUpperCase()) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', '%E2%82%AC', '%ZZ'), fc.integer({ min: 1, max: 2000 }))
      .map(
        ([unit, n]) =>
          () =>
            unit.repeat(n),
      ),
  },
);

export const QUERIES = [
  '',
  '?',
  '?limit=%ZZ',
  '?days=%',
  '?days=1e3',
  '?days=-1',
  '?days=99999999999999999999',
  '?limit=0&cursor=%E0%A4%A',
  '?cursor=Zm9v',
  '?__proto__[polluted]=1',
  '?__proto__.polluted=1',
  '?constructor[prototype][polluted]=1',
  '?a[__proto__][polluted]=1',
  '?days=1&days=2',
  '?days[]=1',
  '?' + 'a[b]'.repeat(50) + '=1',
  '?' + 'x=1&'.repeat(2000),
  '?%00=%00',
  '#fragment',
];

/** Which segment of `route` to break: its parameter half the time, as it alone is decoded. */
export function editedIndex(route: string[]): fc.Arbitrary<number> {
  const param = route.indexOf(':id');
  const any = fc.nat({ max: route.length - 1 });
  return param < 0 ? any : fc.oneof(fc.constant(param), any);
}

/** A path of one of `routes`, with up to three of its segments broken. */
export function target(routes: string[][], keyIds: fc.Arbitrary<string>): fc.Arbitrary<string> {
  // Routes with a parameter count three times: their parameter is decoded, unlike fixed segments.
  const weighted = routes.flatMap((route) =>
    route.includes(':id') ? [route, route, route] : [route],
  );
  return fc
    .constantFrom(...weighted)
    .chain((route) =>
      fc.tuple(
        fc.tuple(...route.map((s) => (s === ':id' ? keyIds : fc.constant(s)))),
        route.length
          ? fc.oneof(
              { withCrossShrink: true },
              { weight: 2, arbitrary: fc.constant([]) },
              {
                weight: 5,
                arbitrary: fc.tuple(fc.tuple(editedIndex(route), segmentEdit)),
              },
              {
                weight: 1,
                arbitrary: fc.array(fc.tuple(fc.nat({ max: route.length - 1 }), segmentEdit), {
                  minLength: 2,
                  maxLength: 3,
                }),
              },
            )
          : fc.constant([]),
        fc.constantFrom('', '', '', '/', '//'),
        fc.oneof(
          { weight: 6, arbitrary: fc.constant('') },
          { weight: 2, arbitrary: fc.constantFrom(...QUERIES) },
          { weight: 1, arbitrary: unicodeText(30).map((q) => `?q=${encodeURIComponent(q)}`) },
        ),
      ),
    )
    .map(([segments, edits, trailing, query]) => {
      const path: string[] = [...segments];
      for (const [at, edit] of edits) path[at] = edit(path[at]);
      return `/${path.join('/')}${trailing}${query}`;
    });
}
