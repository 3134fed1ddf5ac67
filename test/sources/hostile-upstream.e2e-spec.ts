import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { eventually, HttpUpstream, startSdk1Http, stopProcess } from '../support/upstreams';

const HOSTILE_SERVER = join(__dirname, '..', 'support', 'upstreams', 'hostile-server.mjs');
const MAX_BYTES = 4 * 1024 * 1024;
const FIFTY_MB = 50 * 1024 * 1024;

interface HostileStats {
  cancelled: Record<string, unknown[]>;
  big: { written: number; whole: boolean; ended: boolean }[];
  flood: { sent: number; running: boolean; done: number };
  late: number;
}

/** The hostile upstream (test/support/upstreams/hostile-server.mjs): its base URL and process. */
async function startHostile(): Promise<{ base: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [HOSTILE_SERVER], {
    env: { PATH: process.env.PATH ?? '', LATE_MS: '3000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`hostile-server exited (${code})`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const found = /^listening (\d+)$/.exec(line);
      if (found) resolve(Number(found[1]));
    });
  });
  return { base: `http://127.0.0.1:${port}`, child };
}

/**
 * Hostile upstreams, each a source of its own beside a healthy one (the SDK 1.x server): a
 * 10,000-tool list, a 50 MB result, an answer after the deadline, invalid JSON-RPC, cyclic
 * schemas, a notification flood. Each is a clear answer, the service stays up (`/health` answers
 * after each), and the healthy source's calls go on, during the flood too.
 */
describe('MCP sources: a hostile upstream (e2e)', () => {
  let t: TestApp;
  let healthy: HttpUpstream;
  let hostile: { base: string; child: ChildProcess };
  let key: string;
  const stats = async () => (await (await fetch(`${hostile.base}/stats`)).json()) as HostileStats;
  const source = async (name: string) =>
    (
      await t
        .http()
        .get(`/api/v1/sources/${name}`)
        .set('Authorization', `Bearer ${t.adminKey}`)
        .expect(200)
    ).body as { state: string; last_error: string | null; tools: { upstream_name: string }[] };

  beforeAll(async () => {
    [healthy, hostile] = await Promise.all([startSdk1Http(), startHostile()]);
    const at = (path: string) => `${hostile.base}${path}`;
    const dataDir = tempDataDir();
    const yaml = `sources:
  healthy: { kind: mcp, url: ${healthy.url} }
  many: { kind: mcp, url: ${at('/many')} }
  big: { kind: mcp, url: ${at('/big')} }
  late: { kind: mcp, url: ${at('/late')}, timeout_ms: 1000 }
  invalid: { kind: mcp, url: ${at('/invalid')}, timeout_ms: 20000 }
  cyclic: { kind: mcp, url: ${at('/cyclic')} }
  deep: { kind: mcp, url: ${at('/deep')} }
  flood: { kind: mcp, url: ${at('/flood')}, timeout_ms: 60000 }
`;
    t = await startApp({
      dataDir,
      env: {
        CONFIG_FILE: writeConfigFile(dataDir, yaml),
        SOURCE_ALLOW_PRIVATE: 'true',
        SOURCE_MAX_RESULT_BYTES: String(MAX_BYTES),
      },
    });
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    await eventually(async () => {
      const res = await t
        .http()
        .get('/api/v1/sources')
        .set('Authorization', `Bearer ${t.adminKey}`);
      // `deep` is never ready (its listing is refused); the others are.
      const sources = res.body.sources as { name: string; state: string; last_error?: string }[];
      return sources.every(({ name, state, last_error }) =>
        name === 'deep' ? state === 'unavailable' && last_error : state === 'ready',
      );
    }, 40_000).catch(async (error: unknown) => {
      const res = await t
        .http()
        .get('/api/v1/sources')
        .set('Authorization', `Bearer ${t.adminKey}`);
      const states = (res.body.sources as { name: string; state: string; last_error: string }[])
        .map(({ name, state, last_error }) => `${name}: ${state} ${last_error?.slice(0, 300)}`)
        .join('\n');
      throw new Error(`${(error as Error).message}:\n${states}`);
    });
  }, 60_000);

  afterEach(async () => {
    await t.http().get('/health').expect(200);
    await t.callTool('healthy_echo', { text: 'still here' }, key).expect(200);
  });

  afterAll(async () => {
    await t?.close();
    await healthy?.stop();
    if (hostile) await stopProcess(hostile.child);
  });

  it('keeps the first 1,000 tools of a 10,000-tool list and says so in last_error', async () => {
    const many = await source('many');
    expect(many.state).toBe('ready');
    expect(many.tools).toHaveLength(1000);
    expect(many.tools[0].upstream_name).toBe('t0');
    expect(many.last_error).toBe(
      'Left out: 9000 tools after the first 1000 (a source has at most 1000 tools)',
    );
    await t.callTool('many_t999', {}, key).expect(200);
    await t.callTool('many_t1000', {}, key).expect(404);
  });

  it.each(['big', 'big_sse'])(
    'refuses a 50 MB result (%s) at SOURCE_MAX_RESULT_BYTES, without reading it whole',
    async (tool) => {
      const before = (await stats()).big.length;
      const res = await t.callTool(`big_${tool}`, {}, key).expect(502);
      expect(res.body).toEqual({ detail: `Source big answered more than ${MAX_BYTES} bytes.` });
      // The upstream could write only what the sockets buffered once the service stopped reading.
      await eventually(async () => (await stats()).big[before]?.ended === true);
      const written = (await stats()).big[before];
      expect(written.whole).toBe(false);
      expect(written.written).toBeLessThan(FIFTY_MB / 2);
      await t.callTool('big_ok', {}, key).expect(200);
    },
  );

  it('ends a call at its deadline, cancels it upstream and ignores the late answer', async () => {
    const res = await t.callTool('late_late', {}, key).expect(504);
    expect(res.body).toEqual({ detail: "Tool 'late_late' did not finish within 1000 ms" });
    // The SDK's notifications/cancelled names the call's request.
    await eventually(async () => ((await stats()).cancelled['/late'] ?? []).length > 0);
    // The late answer comes (and goes nowhere); the source serves on.
    await eventually(async () => (await stats()).late > 0, 10_000);
    await t.callTool('late_ok', {}, key).expect(200);
    expect((await source('late')).state).toBe('ready');
  });

  it.each([
    ['garbage', /^Source invalid answered invalid JSON-RPC: /],
    ['not_rpc', /^Source invalid answered invalid JSON-RPC: /],
    ['wrong_id', /^Source invalid answered invalid JSON-RPC: /],
    ['sse_garbage', /^Source invalid answered invalid JSON-RPC: /],
  ])('answers invalid JSON-RPC (%s) 502, at once', async (tool, detail) => {
    const res = await t.callTool(`invalid_${tool}`, {}, key);
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatch(detail);
    await t.callTool('invalid_ok', {}, key).expect(200);
  });

  it('leaves out tools whose schemas are cyclic, and serves the others', async () => {
    const cyclic = await source('cyclic');
    expect(cyclic.state).toBe('ready');
    expect(cyclic.tools.map(({ upstream_name }) => upstream_name).sort()).toEqual([
      'fine',
      'ok',
      'tree',
    ]);
    expect(cyclic.last_error).toContain('loop (its input schema: a $ref cycle at #/$defs/a)');
    expect(cyclic.last_error).toContain('self (its input schema: a $ref cycle at #)');
    await t.callTool('cyclic_fine', { text: 'x' }, key).expect(200);
    await t.callTool('cyclic_tree', { children: [{ children: [] }] }, key).expect(200);
    const client = await t.mcp(key);
    const names = (await client.listTools()).tools.map(({ name }) => name);
    expect(names).toEqual(expect.arrayContaining(['cyclic_fine', 'cyclic_tree']));
    expect(names).not.toContain('cyclic_loop');
    await t.http().get('/openapi.json').expect(200);
  });

  it('refuses a listing nested 10,000 levels deep, with a clear last_error', async () => {
    const deep = await source('deep');
    expect(deep.state).toBe('unavailable');
    expect(deep.last_error).toBe('Source deep answered JSON nested more than 128 levels deep.');
    await t.callTool('deep_ok', {}, key).expect(404);
  });

  it('serves the healthy source while another floods a call with notifications', async () => {
    const flooding = t.callTool('flood_flood', {}, key).then((res) => res);
    await eventually(async () => (await stats()).flood.sent > 2000, 30_000);
    for (let i = 0; i < 3; i++) {
      const res = await t.callTool('healthy_echo', { text: `during ${i}` }, key).expect(200);
      expect(res.body.structuredContent).toEqual({ text: `during ${i}` });
      await t.http().get('/health').expect(200);
    }
    expect((await stats()).flood.running).toBe(true);
    await fetch(`${hostile.base}/control/stop-flood`, { method: 'POST' });
    const res = await flooding;
    expect(res.status).toBe(200);
    expect(res.body.content).toEqual([{ type: 'text', text: 'flooded' }]);
  }, 60_000);
});
