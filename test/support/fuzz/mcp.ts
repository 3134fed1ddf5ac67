/**
 * The MCP fuzz suite's generators: JSON-RPC messages (ids of every JSON type, known, unknown and junk
 * methods, params of every shape, tool arguments from the REST body generators, `_meta` small, huge,
 * nested, not an object, with prototype keys), batches (duplicate ids, notifications, big ones),
 * and the headers of a POST /mcp (who sends it, Accept, MCP-Protocol-Version, Content-Type, Origin).
 */
import fc from 'fast-check';
import { MCP_IDEMPOTENCY_META } from '../../../src/idempotency/idempotency.service';
import { bodyText, deepText, jsonValue, toolBodies, wideText } from './bodies';
import type { FuzzRequest } from './client';
import { TOOLS } from './requests';

/** Who sends a POST: a key the suite tracks the counts of, or a caller that must count nothing. */
export type Persona =
  | 'main' // services:execute, no daily limit, a rate budget the suite never spends
  | 'small' // services:execute, 30 messages a window and 5 calls a day: 429s and 402s
  | 'readOnly' // services:read: 403
  | 'greetOnly' // services:execute:greet: a tools/call of another tool is the POST's 403
  | 'none' // no Authorization: 401
  | 'bad' // an unknown sk_ key: 401
  | 'double'; // the main key in two Authorization headers: 400, a failed authentication

export interface McpFuzzRequest extends FuzzRequest {
  persona: Persona;
  /** The key text sent (main, small, readOnly, double). */
  key?: string;
}

/** Replaced, when the request is sent, by an idempotency key never sent before (see freshKeys). */
export const FRESH_IDEMPOTENCY_KEY = '$fresh-idempotency-key$';

/** Each FRESH_IDEMPOTENCY_KEY of a body replaced by a key of its own: a call is never a replay. */
export function freshKeys(body: string | undefined, next: () => string): string | undefined {
  return body
    ?.split(JSON.stringify(FRESH_IDEMPOTENCY_KEY))
    .reduce((text, part) => `${text}${JSON.stringify(next())}${part}`);
}

const anyValue = jsonValue(3);

/** An object of `n` entries k0..k(n-1). */
const entries = (n: number): Record<string, number> => {
  const object: Record<string, number> = {};
  for (let i = 0; i < n; i++) object[`k${i}`] = i;
  return object;
};

/** `{"a":{"a":…}}`, `depth` objects deep. */
const nested = (depth: number): unknown => JSON.parse(deepText(depth, 'object'));

/** Own `__proto__` and `constructor` keys, as JSON.parse makes them (never a prototype). */
const protoObject = () =>
  JSON.parse(
    '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"toString":1}',
  ) as Record<string, unknown>;

const idempotencyKey = fc.oneof(
  { weight: 4, arbitrary: fc.constant(FRESH_IDEMPOTENCY_KEY) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      '',
      'k'.repeat(256),
      'a b',
      '\u00e9',
      '\n',
      7,
      null,
      {},
      [],
    ),
  },
);

/** `_meta` objects: what clients send, and what no client should (over 64 entries, deep, `__proto__`). */
const objectMeta: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        progressToken: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })),
        [MCP_IDEMPOTENCY_META]: idempotencyKey,
        'io.tis/other': anyValue,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom(63, 64, 65).map(entries) },
  { weight: 1, arbitrary: fc.integer({ min: 66, max: 5000 }).map(entries) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }).map(nested) },
  { weight: 1, arbitrary: fc.constant(null).map(protoObject) },
  // 62 ordinary entries and own `__proto__`, `constructor`, `toString`: 65 own entries.
  {
    weight: 1,
    arbitrary: fc.constant(null).map(() => Object.assign(protoObject(), entries(62))),
  },
);

/** `_meta` of any shape: an object mostly, else what is no object (an array of thousands, say). */
const anyMeta: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: objectMeta },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom<unknown>(null, true, 0, 'x', [], [1, 2]),
      fc.integer({ min: 65, max: 2000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
      anyValue,
    ),
  },
);

/** A JSON text parsed; an empty one is `{}`, as the service reads an empty body. */
const parsed = (text: string): unknown => (text.trim() ? (JSON.parse(text) as unknown) : {});

/** A tool's arguments: its own near-valid bodies, any body, wide, deep, anything at all. */
function toolArguments(tool: string): fc.Arbitrary<unknown> {
  const own = toolBodies()[tool] ?? toolBodies().greet;
  return fc.oneof(
    { weight: 6, arbitrary: own.map(parsed) },
    { weight: 1, arbitrary: fc.oneof(...Object.values(toolBodies())).map(parsed) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 3000 }), fc.boolean())
        .map(([n, proto]) => JSON.parse(wideText(n, proto)) as unknown),
    },
    // Around the depth limit of arguments (32), and past what their envelope allows (35).
    {
      weight: 2,
      arbitrary: fc
        .integer({ min: 30, max: 36 })
        .map((d) => JSON.parse(`{"name":"A","x":${deepText(d - 1, 'mixed')}}`) as unknown),
    },
    { weight: 1, arbitrary: anyValue },
  );
}

const KNOWN_TOOL_NAMES = fc.constantFrom(...TOOLS);
const OTHER_TOOL_NAMES = fc.constantFrom(
  'nope',
  '__proto__',
  'constructor',
  'toString',
  '',
  'x'.repeat(300),
);

/** Params with a `_meta` (a third of the time) or without; a well-formed one is an object. */
const withMeta = (params: fc.Arbitrary<Record<string, unknown>>, wellFormed: boolean) =>
  fc
    .tuple(
      params,
      fc.oneof(
        { weight: 2, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: wellFormed ? objectMeta : anyMeta },
      ),
    )
    .map(([rest, m]) => (m === undefined ? rest : { ...rest, _meta: m }));

function toolsCallParams(wellFormed: boolean): fc.Arbitrary<unknown> {
  const call = KNOWN_TOOL_NAMES.chain((name) =>
    fc.record(
      { name: fc.constant(name), arguments: toolArguments(name) },
      { requiredKeys: ['name'] },
    ),
  );
  const odd = fc.record(
    {
      name: fc.oneof(OTHER_TOOL_NAMES, anyValue),
      arguments: toolArguments('greet'),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    { weight: 8, arbitrary: withMeta(call, wellFormed) },
    { weight: 2, arbitrary: withMeta(odd, wellFormed) },
  );
}

const initializeParams = (wellFormed: boolean) =>
  withMeta(
    fc.record(
      {
        protocolVersion: fc.oneof(
          fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05', '2026-07-28', '1999-01-01', ''),
          anyValue,
        ),
        capabilities: fc.oneof(fc.constant({}), anyValue),
        clientInfo: fc.oneof(fc.constant({ name: 'fuzz', version: '1.0.0' }), anyValue),
      },
      { requiredKeys: [] },
    ),
    wellFormed,
  );

export const KNOWN_METHODS = [
  'initialize',
  'tools/list',
  'tools/call',
  'ping',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
];

const UNKNOWN_METHODS = [
  'resources/list',
  'resources/read',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'tasks/get',
  'sampling/createMessage',
];

const JUNK_METHODS = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '',
  'tools/call ',
  'TOOLS/CALL',
  'tools//call',
  'notifications/',
  'rpc.discover',
];

/** A method: mostly a known one, else unknown, junk, any string; not a string unless well-formed. */
const method = (wellFormed: boolean): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant('tools/call') },
    { weight: 6, arbitrary: fc.constantFrom(...KNOWN_METHODS) },
    { weight: 2, arbitrary: fc.constantFrom(...UNKNOWN_METHODS) },
    { weight: 2, arbitrary: fc.constantFrom(...JUNK_METHODS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
    { weight: wellFormed ? 0 : 1, arbitrary: anyValue },
  );

function paramsFor(m: unknown, wellFormed: boolean): fc.Arbitrary<unknown> {
  const own =
    m === 'tools/call'
      ? toolsCallParams(wellFormed)
      : m === 'initialize'
        ? initializeParams(wellFormed)
        : withMeta(fc.record({ cursor: anyValue }, { requiredKeys: [] }), wellFormed);
  return wellFormed
    ? own
    : fc.oneof({ weight: 8, arbitrary: own }, { weight: 1, arbitrary: anyValue });
}

/**
 * Ids of every JSON type (a well-formed one is an integer or a string); `pool` narrows them to a
 * few, so that a batch repeats some.
 */
export function ids(pool: boolean, wellFormed: boolean): fc.Arbitrary<unknown> {
  if (pool) return fc.constantFrom<unknown>(1, 2, '1', 'a', 0, ...(wellFormed ? [] : [null]));
  return fc.oneof(
    { weight: 6, arbitrary: fc.oneof(fc.integer(), fc.string({ maxLength: 10 })) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<unknown>(0, -1, 2 ** 53, 1e300, '', '__proto__', 'constructor'),
    },
    {
      weight: wellFormed ? 0 : 1,
      arbitrary: fc.oneof(
        fc.constant(null),
        fc.boolean(),
        fc.constant({}),
        fc.constant(1.5),
        anyValue,
      ),
    },
  );
}

interface Message {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/**
 * One JSON-RPC message: mostly a request, sometimes a notification. A well-formed one has the shape
 * of a JSON-RPC request or notification (whatever its method and params hold); another may have
 * any `jsonrpc`, id, method and params, and members a request has not.
 */
export function message(
  options: { idPool?: boolean; wellFormed?: boolean } = {},
): fc.Arbitrary<Message> {
  const { idPool = false, wellFormed = false } = options;
  return method(wellFormed).chain((m) => {
    const notification = typeof m === 'string' && m.startsWith('notifications/');
    return fc
      .record({
        jsonrpc: fc.oneof(
          { weight: 15, arbitrary: fc.constant('2.0') },
          {
            weight: wellFormed ? 0 : 1,
            arbitrary: fc.oneof(fc.constantFrom('1.0', 2, null), anyValue),
          },
        ),
        // Notifications have no id; a notification method sent with one is a request.
        id: fc.oneof(
          { weight: notification ? 1 : 6, arbitrary: ids(idPool, wellFormed) },
          { weight: notification ? 6 : 1, arbitrary: fc.constant(undefined) },
        ),
        params: fc.option(paramsFor(m, wellFormed), { freq: 6, nil: undefined }),
        // Now and then a member a request does not have.
        extra: fc.oneof(
          { weight: 12, arbitrary: fc.constant(undefined) },
          {
            weight: wellFormed ? 0 : 1,
            arbitrary: fc.constantFrom<[string, unknown]>(
              ['result', {}],
              ['error', { code: 1 }],
              ['x', 1],
            ),
          },
        ),
      })
      .map(({ jsonrpc, id, params, extra }) => {
        const msg: Record<string, unknown> = { jsonrpc };
        if (id !== undefined) msg.id = id;
        msg.method = m;
        if (params !== undefined) msg.params = params;
        if (extra) msg[extra[0]] = extra[1];
        return msg;
      });
  });
}

/** A valid request of `method`, id `id`: what a big batch repeats. */
const bulkMessage = (m: string, id: number): Message => {
  if (m === 'notifications/initialized') return { jsonrpc: '2.0', method: m };
  const msg: Message = { jsonrpc: '2.0', id, method: m };
  if (m === 'tools/call') msg.params = { name: 'greet', arguments: { name: 'Ada' } };
  return msg;
};

/**
 * A batch: a few well-formed messages (one malformed one refuses them all, so the SDK runs none),
 * a few with repeated ids, a few of anything, many of one kind, or none.
 */
export const batch: fc.Arbitrary<Message[]> = fc.oneof(
  { weight: 6, arbitrary: fc.array(message({ wellFormed: true }), { maxLength: 12 }) },
  {
    weight: 3,
    arbitrary: fc.array(message({ idPool: true, wellFormed: true }), {
      minLength: 2,
      maxLength: 6,
    }),
  },
  { weight: 2, arbitrary: fc.array(message(), { maxLength: 8 }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('tools/list', 'notifications/initialized', 'ping', 'tools/call'),
        fc.integer({ min: 13, max: 120 }),
      )
      .map(([m, n]) => Array.from({ length: n }, (_, i) => bulkMessage(m, i + 1))),
  },
  { weight: 1, arbitrary: fc.constant<Message[]>([]) },
);

/** The body of a POST: one message, a batch, or (rarely) any text at all. */
export const mcpFuzzBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: message({ wellFormed: true }).map((m) => JSON.stringify(m)) },
  { weight: 3, arbitrary: message().map((m) => JSON.stringify(m)) },
  { weight: 4, arbitrary: batch.map((b) => JSON.stringify(b)) },
  { weight: 1, arbitrary: bodyText() },
);

const ACCEPT_OK = 'application/json, text/event-stream';

/** The methods of the 2026-07-28 revision (and the tasks extension) beside the 2025 ones. */
const MODERN_METHODS = [
  'server/discover',
  'tasks/get',
  'tasks/cancel',
  'tasks/update',
  'tasks/list',
];

const MODERN_REVISION = '2026-07-28';
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';

/** The envelope a 2026-07-28 message carries in `params._meta`: mostly right, sometimes not. */
const envelope: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    [PROTOCOL_VERSION_META]: fc.oneof(
      { weight: 10, arbitrary: fc.constant(MODERN_REVISION) },
      { weight: 1, arbitrary: fc.constantFrom('2025-06-18', '2099-01-01', '', 20260728) },
      { weight: 1, arbitrary: anyValue },
    ),
    [CLIENT_CAPABILITIES_META]: fc.oneof(
      { weight: 6, arbitrary: fc.constant({}) },
      // A client that declared tasks: an async-capable call may become one.
      {
        weight: 3,
        arbitrary: fc.constant({ extensions: { 'io.modelcontextprotocol/tasks': {} } }),
      },
      { weight: 1, arbitrary: fc.constant({ roots: { listChanged: true } }) },
      { weight: 1, arbitrary: anyValue },
    ),
    [CLIENT_INFO_META]: fc.oneof(
      { weight: 3, arbitrary: fc.constant({ name: 'fuzz', version: '2.0.0' }) },
      { weight: 1, arbitrary: anyValue },
    ),
  },
  { requiredKeys: [PROTOCOL_VERSION_META] },
);

/**
 * A 2026-07-28 POST (the revision a modern client speaks, docs/mcp.md): one message, or now and
 * then a batch, each with the envelope beside whatever `_meta` it had, 2025 and 2026 methods, and
 * the headers that must agree with the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`),
 * mostly agreeing, sometimes absent or naming something else.
 */
export const modernPost: fc.Arbitrary<{ headers: [string, string][]; body: string }> = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: message({ wellFormed: true }) },
      { weight: 2, arbitrary: message() },
      {
        weight: 3,
        arbitrary: fc
          .tuple(message({ wellFormed: true }), fc.constantFrom(...MODERN_METHODS))
          .map(([m, modern]) => ({ ...m, method: modern })),
      },
    ),
    envelope,
    fc.oneof(
      { weight: 8, arbitrary: fc.constant<'agree' | 'absent' | 'other'>('agree') },
      { weight: 1, arbitrary: fc.constantFrom<'agree' | 'absent' | 'other'>('absent', 'other') },
    ),
    fc.oneof(
      { weight: 8, arbitrary: fc.constant<string | null>(MODERN_REVISION) },
      { weight: 1, arbitrary: fc.constantFrom<string | null>(null, '2025-06-18', 'junk') },
    ),
    fc.nat({ max: 9 }),
  )
  .map(([m, meta, naming, version, batchOf]) => {
    const params = isRecord(m.params) ? m.params : m.params === undefined ? {} : undefined;
    const msg: Message =
      params === undefined
        ? m
        : {
            ...m,
            params: {
              ...params,
              _meta: { ...(isRecord(params._meta) ? params._meta : {}), ...meta },
            },
          };
    const headers: [string, string][] = [...CLIENT_HEADERS];
    if (version !== null) headers.push(['MCP-Protocol-Version', version]);
    const name = isRecord(msg.params) ? msg.params.name : undefined;
    if (naming !== 'absent' && typeof msg.method === 'string' && msg.method.length > 0) {
      headers.push(['Mcp-Method', naming === 'agree' ? msg.method : 'tools/list']);
      if (msg.method === 'tools/call' && typeof name === 'string' && /^[\x21-\x7e]+$/.test(name)) {
        headers.push(['Mcp-Name', naming === 'agree' ? name : 'other']);
      }
    }
    // One POST in ten is a batch of the same message under other ids (2026-07-28 has no batches).
    const body = batchOf === 0 ? [msg, { ...msg, id: 'second' }, { ...msg, id: 'third' }] : msg;
    return { headers, body: JSON.stringify(body) };
  });

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The headers of a POST /mcp beside Authorization: mostly what a client sends, sometimes not. */
export const mcpHeaders: fc.Arbitrary<[string, string][]> = fc
  .record({
    accept: fc.oneof(
      { weight: 8, arbitrary: fc.constant<string | null>(ACCEPT_OK) },
      {
        weight: 2,
        arbitrary: fc.constantFrom<string | null>(
          null,
          '',
          'application/json',
          'text/event-stream',
          '*/*',
          'application/*, text/*',
          'text/event-stream, application/json;q=0',
          'APPLICATION/JSON, TEXT/EVENT-STREAM',
          'junk',
        ),
      },
    ),
    version: fc.oneof(
      { weight: 6, arbitrary: fc.constant<string | null>(null) },
      {
        weight: 3,
        arbitrary: fc.constantFrom<string | null>(
          '2025-06-18',
          '2025-03-26',
          '2024-11-05',
          '2026-07-28',
          '1999-01-01',
          '',
          'junk',
          '2025-06-18, 2025-03-26',
          'v'.repeat(300),
        ),
      },
    ),
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constant<string | null>('application/json') },
      {
        weight: 2,
        arbitrary: fc.constantFrom<string | null>(
          null,
          'application/json; charset=utf-8',
          'APPLICATION/JSON',
          'application/vnd.api+json',
          'application/json-rpc',
          'text/plain',
          'text/event-stream',
        ),
      },
    ),
    origin: fc.oneof(
      { weight: 8, arbitrary: fc.constant<string | null>(null) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | null>('https://agent.example', 'https://evil.example'),
      },
    ),
  })
  .map(({ accept, version, contentType, origin }) => {
    const headers: [string, string][] = [];
    if (accept !== null) headers.push(['Accept', accept]);
    if (version !== null) headers.push(['MCP-Protocol-Version', version]);
    if (contentType !== null) headers.push(['Content-Type', contentType]);
    if (origin !== null) headers.push(['Origin', origin]);
    return headers;
  });

/** The usual headers of a client: Accept both, JSON. */
export const CLIENT_HEADERS: [string, string][] = [
  ['Accept', ACCEPT_OK],
  ['Content-Type', 'application/json'],
];

export const persona: fc.Arbitrary<Persona> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Persona>('main') },
  { weight: 4, arbitrary: fc.constant<Persona>('small') },
  { weight: 2, arbitrary: fc.constant<Persona>('greetOnly') },
  { weight: 1, arbitrary: fc.constantFrom<Persona>('readOnly', 'none', 'bad', 'double') },
);
