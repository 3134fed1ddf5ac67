// A hostile MCP upstream for the sources' tests, over raw HTTP (no SDK on this side, so it can
// answer what an SDK never would): `node hostile-server.mjs`, on a free loopback port printed as
// `listening <port>`. Each path is an upstream of its own (a source each):
//   /many     lists 10,000 tools
//   /big      `big` answers a 50 MB result (JSON), `big_sse` the same in one SSE event
//   /late     `late` answers after LATE_MS (default 5 s); `ok` at once
//   /invalid  `garbage` (not JSON), `not_rpc` (JSON, not JSON-RPC), `wrong_id`, `sse_garbage`
//   /cyclic   tools whose input schemas are cyclic `$ref`s, beside `fine` and `tree` (recursive)
//   /deep     a tool whose input schema is 10,000 levels deep
//   /flood    `flood` sends progress and log notifications until POST /control/stop-flood
//   (every path) `ok` answers "ok"
// GET /stats answers what it saw: the requests cancelled (by path), the bytes of `big` it could write, the
// notifications `flood` sent.
import { createServer } from 'node:http';

const TOTAL_BIG = 50 * 1024 * 1024;
const CHUNK = 'x'.repeat(64 * 1024);
const LATE_MS = Number(process.env.LATE_MS ?? 5000);
const stats = { cancelled: {}, big: [], flood: { sent: 0, running: false, done: 0 }, late: 0 };
let stopFlood = false;

const object = { type: 'object', properties: {} };
const tool = (name, inputSchema = object) => ({ name, description: `${name}.`, inputSchema });
// As text: JSON.stringify itself overflows its stack on 10,000 levels.
const DEEP = `${'{"type":"object","properties":{"a":'.repeat(10_000)}{"type":"string"}${'}}'.repeat(10_000)}`;
const TOOLS = {
  '/many': Array.from({ length: 10_000 }, (_, i) => tool(`t${i}`)),
  '/big': [tool('big'), tool('big_sse'), tool('ok')],
  '/late': [tool('late'), tool('ok')],
  '/invalid': ['garbage', 'not_rpc', 'wrong_id', 'sse_garbage', 'ok'].map((name) => tool(name)),
  '/cyclic': [
    tool('loop', { type: 'object', $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } }),
    tool('self', { type: 'object', $ref: '#' }),
    tool('tree', { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } }),
    tool('fine', { type: 'object', properties: { text: { type: 'string' } } }),
    tool('ok'),
  ],
  '/deep': [tool('deep', 'DEEP'), tool('ok')],
  '/flood': [tool('flood'), tool('ok')],
};

const json = (res, body, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};
const result = (id, value) => ({ jsonrpc: '2.0', id, result: value });
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const event = (message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
const sse = (res) => res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
/** Writes and waits for the socket to drain: false once the client went away. */
const write = (res, chunk) =>
  new Promise((resolve) => {
    if (res.destroyed) return resolve(false);
    if (res.write(chunk)) return resolve(true);
    const done = (ok) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });

async function big(res, id, overSse) {
  const seen = { written: 0, whole: false, ended: false };
  stats.big.push(seen);
  try {
    await bigBody(res, id, overSse, seen);
  } finally {
    seen.ended = true;
  }
}

async function bigBody(res, id, overSse, seen) {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;
  if (overSse) sse(res);
  else res.writeHead(200, { 'content-type': 'application/json' });
  if (!(await write(res, overSse ? `event: message\ndata: ${head}` : head))) return;
  while (seen.written < TOTAL_BIG) {
    if (!(await write(res, CHUNK))) return;
    seen.written += CHUNK.length;
  }
  seen.whole = true;
  res.end(overSse ? '"}]}}\n\n' : '"}]}}');
}

async function flood(res, id, token) {
  sse(res);
  stopFlood = false;
  stats.flood.running = true;
  const started = Date.now();
  while (!stopFlood && Date.now() - started < 60_000) {
    const n = ++stats.flood.sent;
    const progress = token === undefined ? null : { method: 'notifications/progress', params: { progressToken: token, progress: n } };
    const log = { method: 'notifications/message', params: { level: 'info', data: `flood ${n}` } };
    const batch = (progress ? event({ jsonrpc: '2.0', ...progress }) : '') + event({ jsonrpc: '2.0', ...log });
    if (!(await write(res, batch))) break;
    if (n % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  stats.flood.running = false;
  stats.flood.done++;
  res.end(event(result(id, text('flooded'))));
}

async function call(path, res, message) {
  const { id, params } = message;
  const name = params?.name;
  if (name === 'ok' || path === '/many' || path === '/cyclic') return json(res, result(id, text(name)));
  if (path === '/big') return big(res, id, name === 'big_sse');
  if (path === '/late') {
    sse(res);
    await new Promise((resolve) => setTimeout(resolve, LATE_MS));
    stats.late++;
    return res.end(event(result(id, text('late'))));
  }
  if (path === '/invalid') {
    if (name === 'garbage') return json(res, 'this is not JSON {');
    if (name === 'not_rpc') return json(res, { hello: 'world' });
    if (name === 'wrong_id') return json(res, result(987_654_321, text('whose?')));
    sse(res);
    return res.end('event: message\ndata: {not json\n\n');
  }
  if (path === '/flood') return flood(res, id, params?._meta?.progressToken);
  return json(res, { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool ${name}` } });
}

async function rpc(path, res, message) {
  if (message.id === undefined) {
    if (message.method === 'notifications/cancelled') {
      (stats.cancelled[path] ??= []).push(message.params?.requestId);
    }
    res.writeHead(202).end();
    return;
  }
  switch (message.method) {
    case 'initialize':
      return json(res, result(message.id, {
        protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'hostile', version: '1.0.0' },
      }));
    case 'ping':
      return json(res, result(message.id, {}));
    case 'tools/list':
      return json(res, JSON.stringify(result(message.id, { tools: TOOLS[path] })).replace('"DEEP"', DEEP));
    case 'tools/call':
      return call(path, res, message);
    default:
      return json(res, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
}

const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  if (req.method === 'GET' && path === '/stats') return json(res, stats);
  if (req.method === 'POST' && path === '/control/stop-flood') {
    stopFlood = true;
    return json(res, {});
  }
  if (!(path in TOOLS)) return json(res, { error: 'not found' }, 404);
  // No standalone SSE stream, no sessions: a stateless server.
  if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      return json(res, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, 400);
    }
    rpc(path, res, message).catch(() => res.destroy());
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
