/**
 * Property-based fuzzing of the real application (fast-check), over raw HTTP/1.1 sockets so that
 * malformed paths, junk methods and arbitrary header bytes reach the server exactly as sent.
 *
 * Five generators (paths × methods, headers, bodies, JSON-RPC on /mcp, bytes Node's HTTP parser
 * refuses); for every generated request:
 *  1. there is an answer (no hang, no connection closed without one), and it is never a 5xx (the
 *     store is up, so not even 503), nor on /mcp a JSON-RPC -32603 Internal error;
 *  2. an answer >= 400 (HEAD aside) is a JSON object with a `detail` string or list (on /mcp a
 *     JSON-RPC error envelope is accepted too), served as JSON, without a stack trace;
 *  3. the process stays up: no uncaught exception, and `GET /health` still answers 200 afterwards;
 *  4. at the end, greet still works, no prototype was polluted, and config_show is unchanged.
 *
 * Bounded and reproducible: a fixed seed (FUZZ_SEED), a fixed number of runs per property and a
 * time limit per property (shrinking included). Each property stops at its first failure and
 * shrinks it; `FUZZ_REPORT=all` instead runs every request and lists each distinct failure with
 * its smallest example (and the statuses seen), which is what to use when fixing several at once.
 * Runs only in the SQLite project (jest.config.js): it tests the HTTP surface, not the store.
 */
import fc from 'fast-check';
import { STATUS_CODES } from 'node:http';
import { connect, type AddressInfo, type Server } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { startApp, TestApp } from './support/app';

const DEFAULT_SEED = 20250611;
const SEED = seedFrom(process.env.FUZZ_SEED);
const REPORT_ALL = process.env.FUZZ_REPORT === 'all';
const RERUN = `FUZZ_SEED=${SEED} npx jest --config jest.config.js test/fuzz.e2e-spec.ts --selectProjects e2e`;
/** A request with no answer after this long is a hang. */
const ANSWER_TIMEOUT_MS = 5000;
/** Each property stops after this long, shrinking included (a failure found is still reported). */
const PROPERTY_TIME_LIMIT_MS = 3500;

function seedFrom(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got '${raw}'`);
  return seed | 0;
}

// ---------------------------------------------------------------------------------------------
// A raw HTTP/1.1 client: the request is written byte for byte, the answer parsed by hand.
// ---------------------------------------------------------------------------------------------

interface FuzzRequest {
  method: string;
  /** The request-target exactly as sent. */
  target: string;
  headers: [string, string][];
  /** Body text; none: no body and no Content-Length. */
  body?: string;
  /** Send the body chunked instead of with Content-Length. */
  chunked?: boolean;
  /** Encode the head and body one byte per character (raw bytes 0x80-0xFF) instead of UTF-8. */
  latin1?: boolean;
  /** Leave out the Host header. */
  noHost?: boolean;
  /** The HTTP version token of the request line. */
  version?: string;
  /** What the body is, when it is not readable as sent (compressed). */
  note?: string;
}

interface RawResponse {
  status: number;
  headers: Record<string, string[]>;
  body: string;
}

type Outcome =
  | { kind: 'answer'; res: RawResponse }
  | { kind: 'no-answer'; received: string; error?: string }
  | { kind: 'timeout'; received: string };

function encodeRequest(req: FuzzRequest, port: number): Buffer {
  const encoding: BufferEncoding = req.latin1 ? 'latin1' : 'utf8';
  const lines = [`${req.method} ${req.target} ${req.version ?? 'HTTP/1.1'}`];
  if (!req.noHost) lines.push(`Host: 127.0.0.1:${port}`);
  for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
  lines.push('Connection: close');
  const body = req.body === undefined ? undefined : Buffer.from(req.body, encoding);
  if (body !== undefined) {
    lines.push(req.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`);
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, encoding);
  if (body === undefined) return head;
  if (!req.chunked) return Buffer.concat([head, body]);
  const chunk = body.length
    ? [Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]
    : [];
  return Buffer.concat([head, ...chunk, Buffer.from('0\r\n\r\n')]);
}

/** The final answer in `data` (1xx interim answers skipped), or undefined while it is incomplete. */
function parseResponse(data: Buffer, isHead: boolean, closed: boolean): RawResponse | undefined {
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0]);
    if (!match) return undefined;
    const status = Number(match[1]);
    const headers: Record<string, string[]> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      (headers[name] ??= []).push(line.slice(colon + 1).trim());
    }
    let body = rest.subarray(end + 4);
    if (status >= 100 && status < 200 && status !== 101) {
      rest = body;
      continue;
    }
    if (isHead || status === 204 || status === 304) return { status, headers, body: '' };
    if (headers['transfer-encoding']?.some((v) => /chunked/i.test(v))) {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = body.indexOf('\r\n');
        if (lineEnd < 0) return closed ? { status, headers, body: '' } : undefined;
        const size = parseInt(body.subarray(0, lineEnd).toString('latin1'), 16);
        if (!Number.isFinite(size)) return { status, headers, body: '' };
        if (size === 0) break;
        if (body.length < lineEnd + 2 + size)
          return closed ? { status, headers, body: '' } : undefined;
        chunks.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
        body = body.subarray(lineEnd + 2 + size + 2);
      }
      return { status, headers, body: Buffer.concat(chunks).toString('utf8') };
    }
    const length = headers['content-length']?.[0];
    if (length !== undefined) {
      const wanted = Number(length);
      if (body.length < wanted && !closed) return undefined;
      return { status, headers, body: body.subarray(0, wanted).toString('utf8') };
    }
    return closed ? { status, headers, body: body.toString('utf8') } : undefined;
  }
}

function send(port: number, req: FuzzRequest): Promise<Outcome> {
  const isHead = req.method === 'HEAD';
  return new Promise<Outcome>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const received: Buffer[] = [];
    let error: string | undefined;
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const text = () => Buffer.concat(received).toString('latin1').slice(0, 300);
    const timer = setTimeout(
      () => finish({ kind: 'timeout', received: text() }),
      ANSWER_TIMEOUT_MS,
    );
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const res = parseResponse(Buffer.concat(received), isHead, false);
      if (res) finish({ kind: 'answer', res });
    });
    socket.on('error', (err: Error) => {
      error = err.message;
    });
    socket.on('close', () => {
      const res = parseResponse(Buffer.concat(received), isHead, true);
      finish(res ? { kind: 'answer', res } : { kind: 'no-answer', received: text(), error });
    });
    socket.write(encodeRequest(req, port));
  });
}

// ---------------------------------------------------------------------------------------------
// What the answers must look like.
// ---------------------------------------------------------------------------------------------

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isJsonRpcError(body: Record<string, unknown>): boolean {
  return body.jsonrpc === '2.0' && isObject(body.error) && typeof body.error.code === 'number';
}

/** What is wrong with an error answer (status >= 400, not HEAD), or undefined. */
function errorBodyProblem(res: RawResponse): string | undefined {
  const type = res.headers['content-type']?.[0] ?? '(none)';
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.body);
  } catch {
    return `a ${res.status} whose body is not JSON (Content-Type ${type}): ${JSON.stringify(cut(res.body))}`;
  }
  if (!isObject(parsed))
    return `a ${res.status} whose JSON body is not an object: ${cut(res.body)}`;
  if ('detail' in parsed) {
    if (typeof parsed.detail !== 'string' && !Array.isArray(parsed.detail)) {
      return `a ${res.status} whose detail is neither a string nor a list: ${cut(res.body)}`;
    }
  } else if (!isJsonRpcError(parsed)) {
    return `a ${res.status} whose body has no 'detail': ${cut(res.body)}`;
  }
  if (!/^application\/json\b/i.test(type)) {
    return `a ${res.status} with a JSON body served as Content-Type ${type}`;
  }
  if (/\n\s+at \S/.test(res.body)) return `a ${res.status} with a stack trace: ${cut(res.body)}`;
  return undefined;
}

/** The MCP counterpart of a 500: a JSON-RPC error -32603 (Internal error) in the answer. */
function jsonRpcInternalError(res: RawResponse): string | undefined {
  if (!res.body.includes('-32603')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.body);
  } catch {
    return undefined;
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const internal = messages.find(
    (m) => isObject(m) && isJsonRpcError(m) && (m.error as { code: number }).code === -32603,
  );
  return internal
    ? `a JSON-RPC internal error (-32603, the MCP counterpart of a 500): ${cut(JSON.stringify(internal))}`
    : undefined;
}

function cut(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

function describeRequest(req: FuzzRequest): string {
  const lines = [`${req.method} ${cut(JSON.stringify(req.target), 200)} ${req.version ?? ''}`];
  for (const [name, value] of req.headers)
    lines.push(`  ${cut(JSON.stringify(`${name}: ${value}`), 200)}`);
  const flags = [req.chunked && 'chunked', req.latin1 && 'latin1', req.noHost && 'no Host'];
  if (flags.some(Boolean)) lines.push(`  (${flags.filter(Boolean).join(', ')})`);
  if (req.note !== undefined) lines.push(`  ${req.note}`);
  else if (req.body !== undefined) lines.push(`  body ${cut(JSON.stringify(req.body), 400)}`);
  return lines.join('\n');
}

function describeOutcome(outcome: Outcome): string {
  if (outcome.kind !== 'answer') return `${outcome.kind}: ${JSON.stringify(outcome.received)}`;
  const { status, headers, body } = outcome.res;
  return `${status} ${STATUS_CODES[status] ?? ''} ${JSON.stringify(headers['content-type'] ?? [])} ${JSON.stringify(cut(body))}`;
}

// ---------------------------------------------------------------------------------------------
// Generators.
// ---------------------------------------------------------------------------------------------

const MCP_ACCEPT: [string, string][] = [['Accept', 'application/json, text/event-stream']];
const TOOLS = ['greet', 'config_show', 'config_get', 'config_set', 'doctor'];
/** `:id` is replaced by a key id (never the admin key's own). */
const ROUTES: string[][] = [
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
const BODY_ROUTES: string[][] = [
  ...TOOLS.map((tool) => ['api', 'v1', 'services', tool]),
  ['api', 'v1', 'auth', 'api-keys'],
  ['api', 'v1', 'auth', 'api-keys', ':id'],
  ['mcp'],
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
/** Methods Node's parser may know or refuse, and tokens that are no method at all. */
const JUNK_METHODS = [
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
const BAD_PERCENT = [
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
const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
];
const HOSTILE_CONFIG_KEYS = [
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
const CONFIG_KEYS = [
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

const unicodeText = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'binary-ascii', maxLength }),
  );

/** One way to break a path segment. */
const segmentEdit: fc.Arbitrary<(segment: string) => string> = fc.oneof(
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

const QUERIES = [
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
function editedIndex(route: string[]): fc.Arbitrary<number> {
  const param = route.indexOf(':id');
  const any = fc.nat({ max: route.length - 1 });
  return param < 0 ? any : fc.oneof(fc.constant(param), any);
}

/** A path of one of `routes`, with up to three of its segments broken. */
function target(routes: string[][], keyIds: fc.Arbitrary<string>): fc.Arbitrary<string> {
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

type BodyEncoding = 'utf8' | 'latin1' | 'gzip' | 'deflate';

/** Bodies that are small compressed and huge (or hugely nested) once inflated; sent gzipped. */
const ZIP_BOMBS = [
  `{"name":"A","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`,
  `{"name":"${'a'.repeat(8 * 1024 * 1024)}"}`,
  `{"name":"A"${' '.repeat(8 * 1024 * 1024)}}`,
];

const compressed = new Map<string, string>();

/** The body compressed, as one character per byte (sent with `latin1`); large ones made once. */
function compress(text: string, encoding: 'gzip' | 'deflate'): string {
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
function protoText(key: string, inner = '{"polluted":"yes"}'): string {
  return `{${JSON.stringify(key)}:${inner}}`;
}

function deepText(depth: number, kind: 'array' | 'object' | 'mixed'): string {
  let text = '1';
  for (let i = 0; i < depth; i++) {
    const array = kind === 'array' || (kind === 'mixed' && i % 2 === 0);
    text = array ? `[${text}]` : `{"a":${text}}`;
  }
  return text;
}

function wideText(keys: number, extraProto: boolean): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"k${i}":${i}`);
  if (extraProto) parts.push('"__proto__":{"polluted":"yes"}');
  return `{${parts.join(',')}}`;
}

const jsonValue = (maxDepth: number) =>
  fc.oneof(
    fc.jsonValue({ maxDepth }),
    fc.jsonValue({ maxDepth, stringUnit: 'binary' }),
    fc.jsonValue({ maxDepth, stringUnit: 'grapheme' }),
  );

/** For each tool (and key creation), objects like what it expects, with one thing wrong (or not). */
function toolBodies(): Record<string, fc.Arbitrary<string>> {
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
function nearValid(): fc.Arbitrary<string> {
  return fc.oneof(...Object.values(toolBodies()));
}

/** The body for a route: its own kind of body most of the time, anything else otherwise. */
function bodyFor(route: string[]): fc.Arbitrary<string> {
  const last = route[route.length - 1];
  const own =
    last === 'mcp' ? mcpBody() : (toolBodies()[last === ':id' ? 'api-keys' : last] ?? nearValid());
  return fc.oneof({ weight: 3, arbitrary: own }, { weight: 2, arbitrary: bodyText() });
}

function mcpBody(): fc.Arbitrary<string> {
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

function bodyText(): fc.Arbitrary<string> {
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

const CONTENT_TYPES = [
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
function withoutControls(text: string): string {
  return [...text].filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f).join('');
}

function headerSet(adminKey: string): fc.Arbitrary<[string, string][]> {
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

// ---------------------------------------------------------------------------------------------
// The suite.
// ---------------------------------------------------------------------------------------------

interface Failure {
  signature: string;
  text: string;
  size: number;
}

describe('fuzzing the HTTP surface (e2e)', () => {
  let t: TestApp;
  let port: number;
  let victimId: string;
  const uncaught: unknown[] = [];
  /** FUZZ_REPORT=all: every distinct failure, with its smallest example. */
  const failures = new Map<string, Failure>();
  /** How often each status (or no-answer, timeout) came back, per property. */
  const statuses = new Map<string, number>();
  const protoSnapshots: { name: string; proto: object; keys: string[] }[] = [];
  let configBefore: unknown;

  const admin = (): [string, string][] => [['Authorization', `Bearer ${t.adminKey}`]];
  const tool = (name: string, body: unknown): FuzzRequest => ({
    method: 'POST',
    target: `/api/v1/services/${name}`,
    headers: [...admin(), ['Content-Type', 'application/json']],
    body: JSON.stringify(body),
  });

  async function answer(req: FuzzRequest): Promise<RawResponse> {
    const outcome = await send(port, req);
    if (outcome.kind !== 'answer')
      throw new Error(`${describeRequest(req)}\n→ ${describeOutcome(outcome)}`);
    return outcome.res;
  }

  /** The errors the server logged since line `from` of its log: a summary, then the lines. */
  function serverErrors(from: number): string {
    const lines = t.logs.lines.slice(from).filter((line) => /"level":"(error|fatal)"/.test(line));
    const summary = lines.map((line) => {
      const { err } = JSON.parse(line) as { err?: { type?: string; message?: string } };
      return err ? `${err.type}: ${err.message}` : 'no error object';
    });
    const details = lines.map((line) => `\n  server log: ${cut(line, 1500)}`).join('');
    return `${summary.length ? ` (server logged ${summary.join('; ')})` : ''}${details}`;
  }

  function uncaughtText(): string {
    return uncaught
      .map((e) =>
        e instanceof Error
          ? (e.stack ?? String(e)).split('\n').slice(0, 8).join('\n    ')
          : String(e),
      )
      .join('\n  ');
  }

  /** Sends one generated request and checks every property; throws what is wrong. */
  async function exercise(req: FuzzRequest): Promise<void> {
    uncaught.length = 0;
    const logged = t.logs.lines.length;
    const outcome = await send(port, req);
    const problems: string[] = [];
    let kind = outcome.kind as string;
    if (outcome.kind === 'answer') kind = String(outcome.res.status);
    statuses.set(kind, (statuses.get(kind) ?? 0) + 1);
    if (outcome.kind === 'timeout')
      problems.push(`no answer within ${ANSWER_TIMEOUT_MS} ms (hang)`);
    if (outcome.kind === 'no-answer') {
      problems.push(
        `connection closed without an answer${outcome.error ? ` (${outcome.error})` : ''}`,
      );
    }
    if (outcome.kind === 'answer') {
      const { res } = outcome;
      if (res.status >= 500) problems.push(`a ${res.status}${serverErrors(logged)}`);
      const internal = jsonRpcInternalError(res);
      if (internal) problems.push(internal);
      if (res.status >= 400 && req.method !== 'HEAD') {
        const problem = errorBodyProblem(res);
        if (problem) problems.push(problem);
      }
    }
    // Also a barrier: by the time /health answers, the request's 'finish' handlers have run.
    const health = await send(port, { method: 'GET', target: '/health', headers: [] });
    if (health.kind !== 'answer' || health.res.status !== 200) {
      problems.push(`GET /health afterwards: ${describeOutcome(health)}`);
    }
    if (uncaught.length)
      problems.push(
        `uncaught exception in the server (would end the process):\n  ${uncaughtText()}`,
      );
    if (!problems.length) return;
    const text =
      `${problems.join('\n')}\nrequest:\n${describeRequest(req)}\nanswer: ${describeOutcome(outcome)}`
        .split(t.adminKey)
        .join('<admin key>');
    if (!REPORT_ALL) throw new Error(text);
    const signature = `${kind} ${problems.map(signatureOf).join(' | ')}`;
    const size = describeRequest(req).length;
    const known = failures.get(signature);
    if (!known || size < known.size) failures.set(signature, { signature, text, size });
  }

  async function check(arbitrary: fc.Arbitrary<FuzzRequest>, numRuns: number): Promise<void> {
    const property = fc.asyncProperty(arbitrary, (req) => exercise(req));
    const started = Date.now();
    const details = await fc.check(property, {
      seed: SEED,
      numRuns,
      interruptAfterTimeLimit: REPORT_ALL ? undefined : PROPERTY_TIME_LIMIT_MS,
      includeErrorInReport: true,
    });
    if (details.failed) {
      const report = (await fc.asyncDefaultReportMessage(details)) ?? 'Property failed';
      throw new Error(`${report}\n\nSeed ${SEED}. Re-run exactly this with:\n  ${RERUN}`);
    }
    if (details.interrupted || REPORT_ALL) {
      const { currentTestName } = expect.getState();
      process.stderr.write(
        `[fuzz] ${currentTestName}: ${details.numRuns} of ${numRuns} runs in ${Date.now() - started} ms${details.interrupted ? ' (time limit reached)' : ''}; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}\n`,
      );
    }
    statuses.clear();
  }

  beforeAll(async () => {
    for (const [name, proto] of [
      ['Object.prototype (test realm)', Object.prototype],
      ['Array.prototype (test realm)', Array.prototype],
      ['Function.prototype (test realm)', Function.prototype],
      // Objects made by Node itself (req.headers, querystring) belong to the outer realm.
      ['Object.prototype (Node realm)', Object.getPrototypeOf(STATUS_CODES)],
    ] as [string, object][]) {
      if (proto)
        protoSnapshots.push({ name, proto, keys: Reflect.ownKeys(proto).map(String).sort() });
    }
    process.setUncaughtExceptionCaptureCallback((error) => uncaught.push(error));
    t = await startApp({
      env: {
        MCP_ALLOWED_ORIGINS: 'https://agent.example',
        AUTH_FAILURE_LIMIT: '1000000',
        PLAN_UNLIMITED_RATE_LIMIT: '1000000',
      },
    });
    await t.app.listen(0, '127.0.0.1');
    port = ((t.app.getHttpServer() as unknown as Server).address() as AddressInfo).port;
    victimId = (await t.createKeyWithId({ name: 'victim', scope_template: 'standard' })).id;
    const shown = await answer(tool('config_show', {}));
    expect(shown.status).toBe(200);
    configBefore = JSON.parse(shown.body);
  });

  afterAll(async () => {
    try {
      if (t) await t.close();
    } finally {
      process.setUncaughtExceptionCaptureCallback(null);
    }
  });

  const keyIds = () =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(victimId) },
      { weight: 1, arbitrary: fc.stringMatching(/^key_[0-9a-f]{16}$/) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'x'.repeat(1001)),
      },
      { weight: 1, arbitrary: unicodeText(20).map(encodeURIComponent) },
    );

  it('survives every route, with any method and malformed path', async () => {
    const arbitrary = fc
      .record({
        method: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...METHODS) },
          { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'PURGE', 'SEARCH') },
        ),
        target: target(ROUTES, keyIds()),
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
    await check(arbitrary, 500);
  });

  it('survives any headers', async () => {
    const arbitrary = fc
      .record({
        method: fc.oneof(
          { weight: 3, arbitrary: fc.constant('GET') },
          { weight: 4, arbitrary: fc.constantFrom(...METHODS) },
        ),
        // Static files count three times: Range and conditional headers only matter there.
        target: fc
          .constantFrom(
            ...ROUTES.flatMap((r) => (r[0] === 'docs' && r.length > 1 ? [r, r, r] : [r])),
          )
          .map((route) => `/${route.map((s) => (s === ':id' ? victimId : s)).join('/')}`),
        headers: headerSet(t.adminKey),
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
    await check(arbitrary, 400);
  });

  it('survives any body on the routes that read one', async () => {
    const encoding = fc.oneof(
      { weight: 8, arbitrary: fc.constant<BodyEncoding>('utf8') },
      { weight: 1, arbitrary: fc.constantFrom<BodyEncoding>('latin1', 'gzip', 'deflate') },
    );
    const arbitrary = fc
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
    await check(arbitrary, 500);
  });

  it('survives any JSON-RPC on /mcp', async () => {
    const arbitrary = fc
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
    await check(arbitrary, 300);
  });

  it("survives what Node's HTTP parser refuses", async () => {
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
    const arbitrary = fc
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
    await check(arbitrary, 250);
  });

  it('still answers, unpolluted and unchanged, after the fuzzing', async () => {
    uncaught.length = 0;
    const health = await answer({ method: 'GET', target: '/health', headers: [] });
    expect(health.status).toBe(200);
    const greet = await answer(tool('greet', { name: 'Alice' }));
    expect({ status: greet.status, body: JSON.parse(greet.body) as unknown }).toEqual({
      status: 200,
      body: { message: 'Hello, Alice!', times: 1 },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    for (const { name, proto, keys } of protoSnapshots) {
      expect({
        name,
        polluted: (Object.create(proto) as Record<string, unknown>).polluted,
      }).toEqual({ name, polluted: undefined });
      expect({ name, keys: Reflect.ownKeys(proto).map(String).sort() }).toEqual({ name, keys });
    }
    const shown = await answer(tool('config_show', {}));
    expect(shown.status).toBe(200);
    expect(JSON.parse(shown.body)).toEqual(configBefore);
    expect(uncaughtText()).toBe('');
    if (REPORT_ALL && failures.size) {
      const list = [...failures.values()].map((f, i) => `#${i + 1} [${f.signature}]\n${f.text}`);
      throw new Error(`${failures.size} distinct failures (seed ${SEED}):\n\n${list.join('\n\n')}`);
    }
  });
});

/** A failure's kind without what varies between examples (ids, lengths, counts). */
function signatureOf(problem: string): string {
  return problem
    .split('\n')
    .slice(0, problem.startsWith('uncaught') ? 2 : 1)
    .join(' ')
    .replace(/server log:.*/, '')
    .replace(/: (\{|"|\[).*$/, '')
    .replace(/'.*'/g, "'…'")
    .replace(/[0-9a-f-]{36}/g, '<id>')
    .trim();
}
