import { SourcesService } from '../../src/sources';
import { startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { textOf } from '../support/mcp-clients';
import { freePort } from '../../src/testing';
import type { ChildProcess } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  eventually,
  HttpUpstream,
  SDK1_SERVER,
  startEverythingHttp,
  startSdk1Http,
  stopProcess,
} from '../support/upstreams';

/**
 * What goes wrong with an upstream, bounded and said: an upstream that stops is 503 with
 * Retry-After and not charged, then served again once it is back; a stdio child that exits is
 * started again; a result over SOURCE_MAX_RESULT_BYTES is 502; progress and list_changed pass on.
 */
describe('MCP sources: faults, progress, changes (e2e)', () => {
  let t: TestApp;
  let upstream: HttpUpstream;
  let everything: ChildProcess;
  let key: string;
  const sources = () => t.app.get(SourcesService);

  beforeAll(async () => {
    upstream = await startSdk1Http();
    const everythingPort = await freePort();
    everything = await startEverythingHttp(everythingPort);
    const dataDir = tempDataDir();
    const yaml = `sources:
  remote:
    kind: mcp
    url: ${upstream.url}
    timeout_ms: 5000
  child:
    kind: mcp
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(SDK1_SERVER)}, stdio]
  everything:
    kind: mcp
    url: http://127.0.0.1:${everythingPort}/mcp
    include: [echo, trigger-long-running-operation]
`;
    t = await startApp({
      dataDir,
      env: {
        CONFIG_FILE: writeConfigFile(dataDir, yaml),
        SOURCE_ALLOW_PRIVATE: 'true',
        SOURCE_MAX_RESULT_BYTES: '4096',
      },
    });
    key = await t.createKey({ scope_template: 'standard', plan: 'free' });
    await eventually(
      () =>
        sources()
          .list()
          .every((source) => source.state === 'ready'),
      150_000,
    );
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await upstream?.stop();
    if (everything) await stopProcess(everything);
  });

  it('calls server-everything over Streamable HTTP', async () => {
    const res = await t.callTool('everything_echo', { message: 'hi' }, key).expect(200);
    expect(res.body.isError).toBe(false);
    expect(JSON.stringify(res.body.content)).toContain('hi');
  });

  it('answers a result over SOURCE_MAX_RESULT_BYTES 502', async () => {
    const res = await t.callTool('remote_big', { bytes: 10_000 }, key).expect(502);
    expect(res.body).toEqual({ detail: 'Source remote answered more than 4096 bytes.' });
  });

  it('forwards the upstream’s progress to an MCP client', async () => {
    const client = new Client({ name: 'progress-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', await t.url()), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    const progressed: number[] = [];
    const everything: number[] = [];
    try {
      const result = await client.callTool(
        { name: 'child_progress', arguments: {} },
        { onprogress: (p) => progressed.push(p.progress) },
      );
      expect(textOf(result)).toBe('done');
      await client.callTool(
        {
          name: 'everything_trigger-long-running-operation',
          arguments: { duration: 0.3, steps: 3 },
        },
        { onprogress: (p) => everything.push(p.progress) },
      );
    } finally {
      await client.close();
    }
    expect(progressed).toEqual([1, 2, 3]);
    expect(everything).toEqual([1, 2, 3]);
  });

  it('lists the tools again when a stdio upstream says they changed', async () => {
    expect(
      t.app
        .get(SourcesService)
        .get('child')!
        .tools.map(({ tool }) => tool.name),
    ).not.toContain('child_extra');
    await t.callTool('child_add_tool', {}, key).expect(200);
    await eventually(() =>
      sources()
        .get('child')!
        .tools.some(({ tool }) => tool.name === 'child_extra'),
    );
    const client = await t.mcp(key);
    expect((await client.listTools()).tools.map(({ name }) => name)).toContain('child_extra');
    await t.callTool('child_extra', {}, key).expect(200);
  });

  it('starts a stdio child again after it exits', async () => {
    await t.callTool('child_echo', { text: 'before' }, key).expect(200);
    const pid = Number((await t.callTool('child_pid', {}, key).expect(200)).body.content[0].text);
    process.kill(pid, 'SIGKILL');
    await eventually(async () => {
      const res = await t.callTool('child_pid', {}, key);
      return res.status === 200 && Number(res.body.content[0].text) !== pid;
    }, 20_000);
  }, 30_000);

  it('answers 503 with Retry-After, not charged, while the upstream is down, then serves it again', async () => {
    await t.callTool('remote_echo', { text: 'up' }, key).expect(200);
    const port = upstream.port;
    await upstream.stop();
    // The first call finds it gone; the source is then unavailable until it answers again.
    await t.callTool('remote_echo', { text: 'down' }, key);
    await eventually(() => sources().get('remote')!.state === 'unavailable');
    const before = (await t.usage(key)).used as number;
    const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${t.adminKey}`);
    expect(metrics.text).toMatch(/^source_up\{source="remote"\} 0$/m);
    expect(metrics.text).toMatch(/^source_up\{source="child"\} 1$/m);
    const res = await t.callTool('remote_echo', { text: 'down' }, key).expect(503);
    expect(res.body.detail).toMatch(/^Source remote is unavailable\. Retry after \d+ seconds?\.$/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await t.usage(key)).used).toBe(before);
    upstream = await startSdk1Http(port);
    await sources().refresh('remote');
    await t.callTool('remote_echo', { text: 'back' }, key).expect(200);
  }, 30_000);
});
