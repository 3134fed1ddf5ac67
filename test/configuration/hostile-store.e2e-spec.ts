import Redis from 'ioredis';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { RedisServer, usingSharedRedis } from '../support/redis';

const mode = (path: string) => statSync(path).mode & 0o777;

// These start stores of their own (a data directory with a chosen mode, a redis-server); the
// `e2e-redis` project, on one shared Redis, has nothing to add to them.
const describeOwnStore = usingSharedRedis() ? describe.skip : describe;

describeOwnStore('what the service keeps on disk (e2e)', () => {
  it('makes DATA_DIR 0700 and its files 0600 whatever the umask and the mode it had', async () => {
    const dataDir = join(tempDataDir(), 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const umask = process.umask(0o022);
    let t: TestApp | undefined;
    try {
      t = await startApp({ dataDir });
      // A write, so that the WAL and shared-memory files exist.
      await t.createKey();
      expect(mode(dataDir)).toBe(0o700);
      for (const file of ['service.db', 'service.db-wal', 'service.db-shm', 'initial-api-key']) {
        expect({ file, mode: mode(join(dataDir, file)) }).toEqual({ file, mode: 0o600 });
      }
      expect(mode(join(dataDir, 'cache'))).toBe(0o700);
    } finally {
      process.umask(umask);
      await t?.close();
    }
  });

  describe('config_set and paths', () => {
    let t: TestApp;

    // One test stores a path: each test gets an app of its own.
    beforeEach(async () => {
      t = await startApp();
    });
    afterEach(() => t.close());

    const set = (value: string) =>
      t
        .http()
        .post('/api/v1/services/config_set')
        .set(bearer(t.adminKey))
        .send({ key: 'llm_config.cache_dir', value });

    it.each(['/etc/cron.d', '../elsewhere', '/tmp'])(
      'refuses %s for llm_config.cache_dir: outside DATA_DIR, 400 and nothing stored',
      async (value) => {
        const res = await set(value);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          detail: [
            {
              loc: ['body', 'value'],
              msg: `Value error, the path must lie inside DATA_DIR (${t.dataDir})`,
              type: 'value_error',
            },
          ],
        });
        const shown = await t
          .http()
          .post('/api/v1/services/config_get')
          .set(bearer(t.adminKey))
          .send({ key: 'llm_config.cache_dir' });
        expect(shown.body.value).toBe(join(t.dataDir, 'cache'));
      },
    );

    it('accepts a path inside DATA_DIR, absolute or relative to it', async () => {
      expect((await set(join(t.dataDir, 'answers'))).status).toBe(200);
      expect((await set('answers-2')).status).toBe(200);
    });
  });
});

describeOwnStore('health probes (e2e)', () => {
  it('answers /health/live and /health/ready', async () => {
    const t = await startApp();
    try {
      const live = await t.http().get('/health/live');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok' });
      expect(live.headers['cache-control']).toBe('no-store');
      const ready = await t.http().get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'ok', components: { store: { status: 'ok' } } });
    } finally {
      await t.close();
    }
  });

  it('shows event-loop lag in /metrics, so an operator sees a stall', async () => {
    const t = await startApp();
    try {
      const res = await t.http().get('/metrics');
      expect(res.text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
      expect(res.text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
    } finally {
      await t.close();
    }
  });

  describe('on a stock Redis (no AOF)', () => {
    let redis: RedisServer;
    let t: TestApp;
    let admin: Redis;

    beforeAll(async () => {
      redis = await RedisServer.start({ appendonly: false });
      admin = new Redis(redis.url);
      t = await startApp({
        env: {
          REDIS_URL: redis.url,
          REDIS_KEY_PREFIX: 'tis-probe:',
          // A thousand keys are made below as fast as the app takes them: never rate limited.
          PLAN_UNLIMITED_RATE_LIMIT: '1000000',
        },
      });
    });
    afterAll(async () => {
      await t.close();
      admin.disconnect();
      await redis.destroy();
    });

    /** The commands one probe sends, from Redis's own statistics (this server serves nobody else). */
    const commandsOfOneProbe = async (path: string) => {
      await admin.config('RESETSTAT');
      expect((await t.http().get(path)).status).toBe(200);
      const stats = await admin.info('commandstats');
      return Object.fromEntries(
        [...stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)]
          .map(([, command, calls]) => [command, Number(calls)] as const)
          .filter(([command]) => !['config', 'info'].includes(command)),
      );
    };
    /**
     * The commands a probe sends: the fewest of five probes, since the server's own background
     * work (the sources' revision read every second, the upkeep loops) may fall in a probe's
     * window and only ever adds commands.
     */
    const commandsPerProbe = async (path: string) => {
      let fewest: Record<string, number> | undefined;
      const total = (counts: Record<string, number>) =>
        Object.values(counts).reduce((a, b) => a + b, 0);
      for (let i = 0; i < 5; i++) {
        const counts = await commandsOfOneProbe(path);
        if (!fewest || total(counts) < total(fewest)) fewest = counts;
      }
      return fewest!;
    };

    it('is healthy: no AOF is a doctor warning, not a degraded health', async () => {
      const health = await t.http().get('/health');
      expect(health.status).toBe(200);
      expect(health.body.components).toEqual({
        store: { status: 'ok' },
        redis: { status: 'ok', mode: 'single', nodes: 1 },
        sources: { status: 'ok', sources: {} },
      });
      const doctor = await t
        .http()
        .post('/api/v1/services/doctor')
        .set(bearer(t.adminKey))
        .send({});
      const store = (
        doctor.body.checks as { name: string; status: string; message: string }[]
      ).find((check) => check.name === 'store');
      expect(store?.status).toBe('warn');
      expect(store?.message).toContain('without AOF');
      expect(doctor.body.has_failures).toBe(false);
    });

    it('costs the same Redis commands with 10 keys and with 1,000', async () => {
      for (let i = 0; i < 10; i++) await t.createKey();
      const few = await commandsPerProbe('/health');
      const batch = 50;
      for (let created = 10; created < 1000; created += batch) {
        await Promise.all(Array.from({ length: batch }, () => t.createKey()));
      }
      const many = await commandsPerProbe('/health');
      expect(many).toEqual(few);
      expect(Object.values(few).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3);
      expect(await commandsPerProbe('/health/ready')).toEqual(few);
      // 990 keys made through the API: over 30 s on a machine at a load of 20.
    }, 120_000);
  });
});
