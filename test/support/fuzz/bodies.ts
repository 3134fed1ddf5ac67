/** The fuzz suite's body generators: per-tool near-valid bodies, JSON-RPC, hostile JSON text. */
import fc from 'fast-check';
import { deflateSync, gzipSync } from 'node:zlib';
import { CONFIG_KEYS, HOSTILE_CONFIG_KEYS, PROTO_KEYS, TOOLS, unicodeText } from './requests';

export type BodyEncoding = 'utf8' | 'latin1' | 'gzip' | 'deflate';

/** Bodies that are small compressed and huge (or hugely nested) once inflated; sent gzipped. */
export const ZIP_BOMBS = [
  `{"name":"A","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`,
  `{"name":"${'a'.repeat(8 * 1024 * 1024)}"}`,
  `{"name":"A"${' '.repeat(8 * 1024 * 1024)}}`,
];

const compressed = new Map<string, string>();

/** The body compressed, as one character per byte (sent with `latin1`); large ones made once. */
export function compress(text: string, encoding: 'gzip' | 'deflate'): string {
  const key = `${encoding}:${text}`;
  let zipped = compressed.get(key);
  if (zipped === undefined) {
    const bytes = (encoding === 'gzip' ? gzipSync : deflateSync)(Buffer.from(text, 'utf8'));
    zipped = bytes.toString('latin1');
    if (text.length > 10_000) compressed.set(key, zipped);
  }
  return zipped;
}

/** Bodies in JSON text, so that invalid JSON and own `__proto__` keys are possible. */
export function protoText(key: string, inner = '{"polluted":"yes"}'): string {
  return `{${JSON.stringify(key)}:${inner}}`;
}

export function deepText(depth: number, kind: 'array' | 'object' | 'mixed'): string {
  let text = '1';
  for (let i = 0; i < depth; i++) {
    const array = kind === 'array' || (kind === 'mixed' && i % 2 === 0);
    text = array ? `[${text}]` : `{"a":${text}}`;
  }
  return text;
}

export function wideText(keys: number, extraProto: boolean): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"k${i}":${i}`);
  if (extraProto) parts.push('"__proto__":{"polluted":"yes"}');
  return `{${parts.join(',')}}`;
}

export const jsonValue = (maxDepth: number) =>
  fc.oneof(
    fc.jsonValue({ maxDepth }),
    fc.jsonValue({ maxDepth, stringUnit: 'binary' }),
    fc.jsonValue({ maxDepth, stringUnit: 'grapheme' }),
  );

/** For each tool (and key creation), objects like what it expects, with one thing wrong (or not). */
export function toolBodies(): Record<string, fc.Arbitrary<string>> {
  const anyValue = jsonValue(3);
  const name = fc.oneof(
    fc.constantFrom('Bob', '', 'a\u0000b', '\u0000', '\ud800', 'x'.repeat(201), 'x'.repeat(200)),
    unicodeText(50),
    anyValue,
  );
  const greet = fc
    .oneof(
      fc.record(
        { name, shout: fc.oneof(fc.boolean(), anyValue), times: fc.oneof(fc.integer(), anyValue) },
        { requiredKeys: [] },
      ),
      // Valid, so that the tool itself runs on odd but acceptable input.
      fc.record(
        {
          name: unicodeText(200).filter((n) => n.length > 0),
          shout: fc.boolean(),
          times: fc.integer({ min: 1, max: 100 }),
        },
        { requiredKeys: ['name'] },
      ),
    )
    .map((o) => JSON.stringify(o));
  const withProto = fc
    .tuple(fc.constantFrom(...PROTO_KEYS), fc.constantFrom('{"name":"A"', '{"key":"logging"', '{'))
    .map(
      ([key, start]) =>
        `${start}${start === '{' ? '' : ','}${JSON.stringify(key)}:{"polluted":"yes","prototype":{"polluted":"yes"}}}`,
    );
  const configGet = fc
    .record({ key: fc.oneof(fc.constantFrom(...CONFIG_KEYS), unicodeText(30), anyValue) })
    .map((o) => JSON.stringify(o));
  const configShow = fc.oneof(
    fc.constantFrom('{}', '', ' ', '{"x":1}', '[]'),
    fc
      .dictionary(fc.string({ maxLength: 5 }), anyValue, { maxKeys: 3 })
      .map((o) => JSON.stringify(o)),
  );
  // Only keys config_set must refuse: the configuration is compared before and after.
  const configSet = fc
    .record({
      key: fc.constantFrom(...HOSTILE_CONFIG_KEYS),
      value: fc.oneof(
        fc.constantFrom('yes', '1e400', '{"polluted":1}', 'x'.repeat(4097)),
        unicodeText(20),
      ),
    })
    .map((o) => JSON.stringify(o));
  const doctor = fc.record({ fix: fc.oneof(fc.boolean(), anyValue) }).map((o) => JSON.stringify(o));
  const apiKey = fc
    .record(
      {
        name: name,
        scopes: fc.oneof(
          fc.array(
            fc.oneof(
              fc.constantFrom(
                '*',
                'admin:*',
                'services:read',
                'services:execute',
                '__proto__',
                ':*',
                'a:b:c',
              ),
              unicodeText(10),
            ),
            { maxLength: 25 },
          ),
          anyValue,
        ),
        scope_template: fc.oneof(
          fc.constantFrom('admin', 'standard', 'read_only', '__proto__', 'constructor'),
          anyValue,
        ),
        plan: fc.oneof(
          fc.constantFrom('free', 'pro', 'unlimited', '__proto__', 'toString', 'constructor'),
          anyValue,
        ),
        daily_limit: fc.oneof(fc.integer(), fc.double(), anyValue),
        rate_limit: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 1e300, 2 ** 53), anyValue),
        expires_in_days: fc.oneof(fc.integer(), anyValue),
        enabled: anyValue,
        grace_seconds: fc.oneof(fc.integer(), anyValue),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o));
  const withProtoOr = (arbitrary: fc.Arbitrary<string>) =>
    fc.oneof({ weight: 4, arbitrary }, { weight: 1, arbitrary: withProto });
  return {
    greet: withProtoOr(greet),
    config_show: withProtoOr(configShow),
    config_get: withProtoOr(configGet),
    config_set: withProtoOr(configSet),
    doctor: withProtoOr(doctor),
    'api-keys': withProtoOr(apiKey),
  };
}

/** Objects that look like what some route expects, with one thing wrong (or nothing). */
export function nearValid(): fc.Arbitrary<string> {
  return fc.oneof(...Object.values(toolBodies()));
}

/** The body for a route: its own kind of body most of the time, anything else otherwise. */
export function bodyFor(route: string[]): fc.Arbitrary<string> {
  const last = route[route.length - 1];
  const own =
    last === 'mcp' ? mcpBody() : (toolBodies()[last === ':id' ? 'api-keys' : last] ?? nearValid());
  return fc.oneof({ weight: 3, arbitrary: own }, { weight: 2, arbitrary: bodyText() });
}

export function mcpBody(): fc.Arbitrary<string> {
  const anyValue = jsonValue(3);
  const bodies = toolBodies();
  const call = fc.constantFrom(...TOOLS).chain((name) =>
    fc.record({
      name: fc.constant(name),
      arguments: bodies[name].map((text) => (text.trim() ? (JSON.parse(text) as unknown) : {})),
    }),
  );
  const args = fc.oneof(
    anyValue,
    nearValid().map((text) => (text.trim() ? (JSON.parse(text) as unknown) : {})),
    fc
      .integer({ min: 1, max: 120 })
      .map((d) => JSON.parse(`{"name":"A","x":${deepText(d, 'mixed')}}`) as unknown),
  );
  const params = fc.oneof(
    { weight: 6, arbitrary: call },
    fc.record(
      {
        name: fc.oneof(fc.constantFrom(...TOOLS, 'nope', '__proto__', 'constructor'), anyValue),
        arguments: args,
      },
      { requiredKeys: ['name'] },
    ),
    fc.record({
      protocolVersion: fc.oneof(
        fc.constantFrom('2025-06-18', '2024-11-05', '1999-01-01'),
        anyValue,
      ),
      capabilities: anyValue,
      clientInfo: anyValue,
    }),
    anyValue,
  );
  const message = fc.record(
    {
      jsonrpc: fc.oneof(
        { weight: 10, arbitrary: fc.constant('2.0') },
        { weight: 1, arbitrary: anyValue },
      ),
      id: fc.oneof(
        { weight: 5, arbitrary: fc.oneof(fc.integer(), fc.string()) },
        { weight: 1, arbitrary: fc.oneof(fc.constant(null), anyValue) },
      ),
      method: fc.oneof(
        { weight: 4, arbitrary: fc.constant('tools/call') },
        fc.constantFrom(
          'tools/call',
          'tools/list',
          'initialize',
          'ping',
          'notifications/initialized',
          'resources/list',
          'prompts/get',
          '__proto__',
          'constructor',
          'toString',
        ),
        fc.string(),
      ),
      params,
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  );
  return fc.oneof(
    { weight: 6, arbitrary: message.map((m) => JSON.stringify(m)) },
    { weight: 2, arbitrary: fc.array(message, { maxLength: 10 }).map((m) => JSON.stringify(m)) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...PROTO_KEYS)
        .map(
          (k) =>
            `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":${protoText(k)}}}`,
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...PROTO_KEYS)
        .map((k) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${protoText(k)}}`),
    },
    { weight: 1, arbitrary: bodyText() },
  );
}

export function bodyText(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: jsonValue(6).map((v) => JSON.stringify(v)) },
    { weight: 6, arbitrary: nearValid() },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.integer({ min: 1, max: 120 }),
          fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed'),
          fc.boolean(),
        )
        .map(([depth, kind, wrap]) => {
          const deep = deepText(depth, kind);
          return wrap ? `{"name":"A","x":${deep}}` : deep;
        }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 3000 }), fc.boolean())
        .map(([keys, proto]) => wideText(keys, proto)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...PROTO_KEYS),
          fc.constantFrom(
            '{"polluted":"yes"}',
            '{"prototype":{"polluted":"yes"}}',
            '"yes"',
            'null',
            '[1]',
          ),
        )
        .map(([key, inner]) => protoText(key, inner)),
    },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom(
          '',
          ' ',
          '\r\n',
          '{',
          '{"name": ',
          '{"name":"A",}',
          '[1,]',
          'NaN',
          'undefined',
          "{'name':'A'}",
          '{"name":"A"}{"name":"B"}',
          '\ufeff{"name":"A"}',
          '{"name":"\u0000"}',
          '{"name":"A\nB"}',
          '{"name":"\\ud800"}',
          '{"name":"\\u0000"}',
          '{"name":1e400}',
          '{"times":1e400}',
          '{"times":-0}',
          '{"times":1.0}',
          '{"times":' + '9'.repeat(400) + '}',
          '{"name":"A","name":"B"}',
          '{"":1}',
          '\u0000',
          'null',
          'true',
          '"x"',
          '[]',
        ),
        fc.string({ unit: 'binary', maxLength: 60 }),
        jsonValue(4).map((v) => {
          const text = JSON.stringify(v) ?? '';
          return text.slice(0, Math.max(0, text.length - 1));
        }),
      ),
    },
  );
}
