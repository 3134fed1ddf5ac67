import type { TestingModuleBuilder } from '@nestjs/testing';
import type { Response } from 'supertest';
import { Clock } from '../../src/kernel/common/clock';
import { McpServerFactory } from '../../src/transports/mcp/mcp.server';
import { bearer, startApp, TestApp, tempDataDir } from '../support/app';
import { FakeClock } from '../support/fake-clock';

/**
 * The fast path in front of the SDK's entry (src/transports/mcp/mcp.fast-path.ts) against the SDK's entry alone
 * (MCP_LEAN_PATH=false), request for request: the same status, the headers the contract names and
 * the same body, byte for byte. Both apps share one store; each request goes to each app with a
 * fresh key of the same settings, so that its counters read alike.
 */

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'differential', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Case {
  name: string;
  body: unknown;
  headers?: Record<string, string>;
  /** Settings of the key each app gets for it. */
  key?: Record<string, unknown>;
  /** Sent this many times in a row (replays, quotas); every answer is compared. */
  times?: number;
}

const modernHeaders = (method: string, name?: string): Record<string, string> => ({
  'MCP-Protocol-Version': MODERN,
  'Mcp-Method': method,
  ...(name === undefined ? {} : { 'Mcp-Name': name }),
});

const modernCall = (name: string, args: unknown, meta: object = {}, id: unknown = 1) => ({
  body: {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: { ...ENVELOPE, ...meta } },
  },
  headers: modernHeaders('tools/call', name),
});

const legacyCall = (name: string, args: unknown, meta?: object, id: unknown = 1) => ({
  body: {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  },
  headers: { 'MCP-Protocol-Version': '2025-06-18' },
});

const modernList = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: ENVELOPE } };
const legacyList = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

const CASES: Case[] = [
  { name: '2026 tools/list', body: modernList, headers: modernHeaders('tools/list') },
  { name: '2026 greet', ...modernCall('greet', { name: 'Ada', shout: true, times: 3 }) },
  { name: '2026 greet, a string id', ...modernCall('greet', { name: 'Ada' }, {}, 'req-7') },
  { name: '2026 greet, id 0', ...modernCall('greet', { name: 'Ada' }, {}, 0) },
  { name: '2026 greet, a fractional id', ...modernCall('greet', { name: 'Ada' }, {}, 1.5) },
  { name: '2026 greet without its field', ...modernCall('greet', {}) },
  { name: '2026 greet, an empty name', ...modernCall('greet', { name: '' }) },
  { name: '2026 greet, times 0', ...modernCall('greet', { name: 'A', times: 0 }) },
  { name: '2026 greet, times 101', ...modernCall('greet', { name: 'A', times: 101 }) },
  { name: '2026 greet, shout "yes"', ...modernCall('greet', { name: 'A', shout: 'yes' }) },
  { name: '2026 greet, an extra field', ...modernCall('greet', { name: 'A', extra: 1 }) },
  { name: '2026 greet, a long name', ...modernCall('greet', { name: 'n'.repeat(300) }) },
  {
    name: '2026 greet, __proto__',
    ...modernCall('greet', JSON.parse('{"name":"A","__proto__":{"x":1}}')),
  },
  { name: '2026 greet, arguments a list', ...modernCall('greet', ['A']) },
  { name: '2026 greet, no arguments', ...modernCall('greet', undefined) },
  { name: '2026 an unknown tool', ...modernCall('nope', {}) },
  { name: '2026 config_get of an unknown key', ...modernCall('config_get', { key: 'no.such' }) },
  { name: '2026 config_show', ...modernCall('config_show', {}) },
  {
    name: '2026 Mcp-Name mismatch',
    body: modernCall('greet', { name: 'A' }).body,
    headers: modernHeaders('tools/call', 'other'),
  },
  {
    name: '2026 Mcp-Name missing',
    body: modernCall('greet', { name: 'A' }).body,
    headers: modernHeaders('tools/call'),
  },
  {
    name: '2026 Mcp-Method mismatch',
    body: modernCall('greet', { name: 'A' }).body,
    headers: modernHeaders('tools/list', 'greet'),
  },
  {
    name: '2026 MCP-Protocol-Version mismatch',
    body: modernCall('greet', { name: 'A' }).body,
    headers: { ...modernHeaders('tools/call', 'greet'), 'MCP-Protocol-Version': '2025-06-18' },
  },
  {
    name: '2026 without MCP-Protocol-Version',
    body: modernCall('greet', { name: 'A' }).body,
    headers: { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'greet' },
  },
  {
    name: 'an unsupported version',
    ...modernCall(
      'greet',
      { name: 'A' },
      { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
    ),
    headers: { ...modernHeaders('tools/call', 'greet'), 'MCP-Protocol-Version': '2099-01-01' },
  },
  {
    name: 'an envelope without clientCapabilities',
    body: {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
    },
    headers: modernHeaders('tools/list'),
  },
  {
    name: 'a malformed clientInfo',
    ...modernCall('greet', { name: 'A' }, { 'io.modelcontextprotocol/clientInfo': 'me' }),
  },
  {
    name: 'capabilities the fast path leaves to the SDK',
    ...modernCall(
      'greet',
      { name: 'A' },
      {
        'io.modelcontextprotocol/clientCapabilities': {
          sampling: {},
          roots: { listChanged: true },
          extensions: { 'io.modelcontextprotocol/skills': {} },
        },
      },
    ),
  },
  {
    name: 'roots and extensions',
    ...modernCall(
      'greet',
      { name: 'A' },
      {
        'io.modelcontextprotocol/clientCapabilities': {
          roots: { listChanged: true },
          extensions: { 'example.com/x': {} },
        },
      },
    ),
  },
  {
    name: 'a log level',
    ...modernCall('greet', { name: 'A' }, { 'io.modelcontextprotocol/logLevel': 'debug' }),
  },
  {
    name: '2026 idempotent call, then its replay',
    ...modernCall('greet', { name: 'Once' }, { 'io.tis/idempotency-key': 'diff-1' }),
    times: 2,
  },
  {
    name: '2026 a quota used up',
    ...modernCall('greet', { name: 'A' }),
    key: { scope_template: 'standard', daily_limit: 1 },
    times: 2,
  },
  {
    name: '2026 a rate limit spent',
    ...modernCall('greet', { name: 'A' }),
    key: { scope_template: 'standard', rate_limit: 1, plan: 'pro' },
    times: 2,
  },
  { name: '2025 tools/list', body: legacyList, headers: { 'MCP-Protocol-Version': '2025-06-18' } },
  { name: '2025 tools/list without a version header', body: legacyList, headers: {} },
  {
    name: '2025 tools/list, 2025-03-26',
    body: legacyList,
    headers: { 'MCP-Protocol-Version': '2025-03-26' },
  },
  {
    name: '2025 tools/list, an unknown version header',
    body: legacyList,
    headers: { 'MCP-Protocol-Version': '1999-01-01' },
  },
  { name: '2025 greet', ...legacyCall('greet', { name: 'Ada' }) },
  { name: '2025 greet, a validation error', ...legacyCall('greet', { name: 'A', times: 'x' }) },
  { name: '2025 an unknown tool', ...legacyCall('nope', {}) },
  { name: '2025 greet, no arguments', ...legacyCall('greet', undefined) },
  {
    name: '2025 greet, an extra param',
    body: {
      ...legacyCall('greet', { name: 'A' }).body,
      params: { name: 'greet', arguments: { name: 'A' }, task: {} },
    },
    headers: { 'MCP-Protocol-Version': '2025-06-18' },
  },
  {
    name: '2025 greet, JSON only in Accept',
    ...legacyCall('greet', { name: 'A' }),
    headers: { 'MCP-Protocol-Version': '2025-06-18', Accept: 'application/json' },
  },
  {
    name: '2025 greet, a charset',
    ...legacyCall('greet', { name: 'A' }),
    headers: {
      'MCP-Protocol-Version': '2025-06-18',
      'Content-Type': 'application/json; charset=utf-8',
    },
  },
  {
    name: '2025 idempotent call, then its replay, then another body',
    ...legacyCall('greet', { name: 'Twice' }, { 'io.tis/idempotency-key': 'diff-2' }),
    times: 2,
  },
  {
    name: '2025 a quota used up',
    ...legacyCall('greet', { name: 'A' }),
    key: { scope_template: 'standard', daily_limit: 0 },
  },
  {
    name: '2025 a progress token (SSE: both the SDK)',
    ...legacyCall('greet', { name: 'A' }, { progressToken: 1 }),
  },
];

/** What the contract names of an answer, to compare: status, media type, counters, body. */
function facts(res: Response) {
  const h = res.headers;
  return {
    status: res.status,
    contentType: h['content-type'],
    rateLimit: [h['x-ratelimit-limit'], h['x-ratelimit-remaining']],
    quota: [h['x-quota-limit'], h['x-quota-used'], h['x-quota-remaining']],
    retryAfter: h['retry-after'] === undefined ? undefined : 'set',
    // The two calls of a pair may straddle a second (or a minute) of the time left before a reset.
    body: res.text
      .replace(/Retry after \d+ seconds?/g, 'Retry after <n> seconds')
      .replace(/Resets in \d+h \d+m/g, 'Resets in <h>h <m>m'),
  };
}

describe('MCP: the fast path answers as the SDK entry does (e2e, differential)', () => {
  // Still: both keys' rate buckets hold exactly what their calls left, however slow the machine.
  const clock = new FakeClock(new Date());
  const configure = (b: TestingModuleBuilder) => b.overrideProvider(Clock).useValue(clock);
  let lean: TestApp;
  let sdk: TestApp;

  beforeAll(async () => {
    const dataDir = tempDataDir();
    lean = await startApp({ dataDir, configure });
    sdk = await startApp({ dataDir, env: { MCP_LEAN_PATH: 'false' }, configure });
  });
  afterAll(async () => {
    await lean.close();
    await sdk.close();
  });

  const send = (t: TestApp, key: string, c: Case) => {
    let req = t
      .http()
      .post('/mcp')
      .set(bearer(key))
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream');
    for (const [name, value] of Object.entries(c.headers ?? {})) req = req.set(name, value);
    return req.send(JSON.stringify(c.body));
  };

  it.each(CASES.map((c) => [c.name, c]))('%s', async (_, c) => {
    const settings = c.key ?? { scope_template: 'standard', plan: 'pro' };
    const [leanKey, sdkKey] = [await lean.createKey(settings), await sdk.createKey(settings)];
    for (let i = 0; i < (c.times ?? 1); i++) {
      const viaLean = await send(lean, leanKey, c);
      const viaSdk = await send(sdk, sdkKey, c);
      expect({ attempt: i, ...facts(viaLean) }).toEqual({ attempt: i, ...facts(viaSdk) });
      expect(viaLean.status).toBeLessThan(500);
    }
  });

  it('takes the fast path for the hot messages of both eras, and the SDK for the rest', async () => {
    const servers = jest.spyOn(lean.app.get(McpServerFactory), 'create');
    try {
      const key = await lean.createKey({ scope_template: 'standard', plan: 'pro' });
      for (const hot of [
        modernCall('greet', { name: 'Hot' }),
        legacyCall('greet', { name: 'Hot' }),
        { body: modernList, headers: modernHeaders('tools/list') },
        { body: legacyList, headers: {} },
      ]) {
        expect((await send(lean, key, { name: 'hot', ...hot })).status).toBe(200);
      }
      // Built by the SDK's entry for each request it answers; none was.
      expect(servers).not.toHaveBeenCalled();
      const discover = {
        name: 'discover',
        body: { jsonrpc: '2.0', id: 9, method: 'server/discover', params: { _meta: ENVELOPE } },
        headers: modernHeaders('server/discover'),
      };
      expect((await send(lean, key, discover)).status).toBe(200);
      expect(servers).toHaveBeenCalledTimes(1);
    } finally {
      servers.mockRestore();
    }
  });
});
