import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HealthService } from '../../src/health/health.service';
import { Store } from '../../src/kernel/store/store';
import { bearer, startApp, TestApp } from '../support/app';
import { sharedRedisMode, usingSharedRedis } from '../support/redis';

const VERSION = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** The SQLite cases break the embedded store's file; under Redis there is no file to break. */
const onSqlite = usingSharedRedis() ? it.skip : it;

/** `components.redis` of a healthy service on this run's backend: the topology, never an address. */
const NODES = { single: 1, sentinel: 2, cluster: 3 };
const mode = sharedRedisMode();
const HEALTHY_REDIS = mode
  ? { status: 'ok', mode, nodes: NODES[mode] }
  : { status: 'not_configured' };

const PATHS = ['/health', '/api/v1/health'];

describe('health (e2e)', () => {
  describe('a healthy service', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startApp({ env: { AUTH_FAILURE_LIMIT: '2' } });
    });
    afterAll(() => t.close());

    it.each(PATHS)('%s answers 200 ok, with its components, to anyone', async (path) => {
      const res = await t.http().get(path);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        status: 'ok',
        version: VERSION,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        components: {
          store: { status: 'ok' },
          redis: HEALTHY_REDIS,
          // No source configured: none to show, nothing degraded (test/sources/ shows some).
          sources: { status: 'ok', sources: {} },
        },
      });
      expect(Math.abs(Date.parse(res.body.timestamp) - Date.now())).toBeLessThan(60_000);
    });

    it('ignores credentials: a bad key neither fails nor counts as a failed authentication', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await t.http().get('/health').set(bearer('sk_not_a_key'));
        expect(res.status).toBe(200);
      }
      // Two failures an address are allowed: had the probes counted, this would be 429.
      const keyed = await t.http().get('/api/v1/usage').set(bearer('sk_not_a_key'));
      expect(keyed.status).toBe(401);
    });

    it('is neither rate limited nor metered', async () => {
      // A key of one call a second and one a day: probing with it must cost nothing.
      const key = await t.createKey({ rate_limit: 1, daily_limit: 1 });
      for (let i = 0; i < 10; i++) {
        expect((await t.http().get('/api/v1/health').set(bearer(key))).status).toBe(200);
      }
      const usage = await t.http().get('/api/v1/usage').set(bearer(key));
      expect(usage.body.used).toBe(0);
    });
  });

  describe('a broken store', () => {
    let t: TestApp;

    beforeEach(async () => {
      t = await startApp();
    });
    afterEach(() => t.close());

    onSqlite('answers 503 degraded when the database file is overwritten on disk', async () => {
      expect((await t.http().get('/health')).status).toBe(200);
      const file = join(t.dataDir, 'service.db');
      const garbage = Buffer.alloc(8192, 0x41);
      // What a restart would read: neither the file nor its write-ahead log is a database any more.
      writeFileSync(file, garbage);
      writeFileSync(`${file}-wal`, garbage);
      for (const path of PATHS) {
        const res = await t.http().get(path);
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({
          status: 'degraded',
          version: VERSION,
          components: { store: { status: 'error' }, redis: { status: 'not_configured' } },
        });
      }
      // Logged once, without the details reaching the client.
      const lines = t.logs.records().filter((r) => String(r.msg).startsWith('Store unhealthy'));
      expect(lines).toHaveLength(1);
      expect(lines[0].level).toBe('error');
    });

    it('answers 503 degraded when the store is closed', async () => {
      await t.app.get(Store).close();
      const res = await t.http().get('/api/v1/health');
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('degraded');
      expect(res.body.components.store).toEqual({ status: 'error' });
    });

    it('answers 503 degraded once shutdown has begun, so load balancers stop sending requests', async () => {
      t.app.get(HealthService).beforeApplicationShutdown('SIGTERM');
      const res = await t.http().get('/health');
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('degraded');
      expect(res.body.components.store).toEqual({ status: 'ok' });
    });
  });
});
