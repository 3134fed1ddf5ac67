import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Redis from 'ioredis';
import type { Response } from 'supertest';
import { hashApiKey } from '../../src/subjects/api-key';
import { KeyRateLimiter } from '../../src/limits/key-rate-limiter';
import { ApiKeyRecord, KeyStore } from '../../src/subjects/key.store';
import { OverrideStore } from '../../src/configuration/override.store';
import { Store } from '../../src/kernel/store/store';
import { loadSettings } from '../../src/kernel/settings/settings';
import { makeStore, openBackend, storeOf } from '../../src/kernel/store/store.module';
import { KEY_STORE } from '../../src/subjects/subjects.stores';
import { LogControl } from '../../src/logging/log-control';
import { REDIS_CLIENT, RedisClient } from '../../src/kernel/store/redis/redis.connection';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { runCli, CLI_TIMEOUT_MS } from '../support/cli';
import { RedisServer, usingSharedRedis } from '../support/redis';

/** Polls until the check holds; fails after a bounded wait instead of hanging. */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The commands the instances send to Redis from now on (MONITOR), not those scripts run inside
 * it (their source says 'lua'), lower-cased; `stop` ends the watch.
 */
async function watchCommands(url: string): Promise<{ sent: string[]; stop: () => void }> {
  const raw = new Redis(url);
  const monitor = await raw.monitor();
  const sent: string[] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua') sent.push(args[0].toLowerCase());
  });
  return {
    sent,
    stop: () => {
      monitor.disconnect();
      raw.disconnect();
    },
  };
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

const STORE_DOWN =
  'Service temporarily unavailable: the data store cannot be reached. Retry shortly.';

// This file starts redis-servers of its own; the `e2e-redis` project (one shared Redis) skips it.
const describeOwnRedis = usingSharedRedis() ? describe.skip : describe;

describeOwnRedis('Redis backend: two instances on one Redis (e2e)', () => {
  const PASSWORD = 'redis-e2e-secret-password';
  const PREFIX = 'tis-e2e:';
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;

  // Every test gets a redis-server and two instances of its own: the tests stop and restart Redis,
  // use up the failed-authentication limit of the one client address and look at every key.
  beforeEach(async () => {
    redis = await RedisServer.start({ password: PASSWORD });
    const env = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: PREFIX, AUTH_FAILURE_LIMIT: '5' };
    a = await startApp({ env });
    // One deployment: the second instance shares the first one's data directory (the initial key).
    b = await startApp({ env, dataDir: a.dataDir });
    // Listening servers, so that many concurrent supertest calls share one socket each.
    await Promise.all([a.app.listen(0, '127.0.0.1'), b.app.listen(0, '127.0.0.1')]);
  });

  afterEach(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.destroy();
  });

  const greet = (t: TestApp, key: string) =>
    t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'Ada' });
  const usage = async (t: TestApp, key: string) =>
    (await t.http().get('/api/v1/usage').set(bearer(key)).expect(200)).body as { used: number };
  /** `n` calls at once, alternating between A and B. */
  const burst = (n: number, key: string) =>
    Promise.all(Array.from({ length: n }, (_, i) => greet(i % 2 ? b : a, key)));

  it('runs both instances on Redis, with one initial key between them', async () => {
    expect(a.app.get(Store).kind).toBe('redis');
    expect(b.app.get(Store).kind).toBe('redis');
    expect(b.adminKey).toBe(a.adminKey);
    const keys = await b.app.get(KeyStore).listKeys();
    expect(keys.map((k) => k.name)).toEqual(['initial-admin']);
    expect(a.app.get(Store).describe()).toBe(
      `redis://:****@127.0.0.1:${redis.port} (key prefix '${PREFIX}')`,
    );
  });

  it('accepts on B a key created through A, and refuses on A a key revoked through B', async () => {
    const key = await a.createKey({ scope_template: 'standard', plan: 'unlimited' });
    expect((await greet(b, key)).status).toBe(200);
    const me = await b.http().get('/api/v1/auth/me').set(bearer(key)).expect(200);
    await b
      .http()
      .delete(`/api/v1/auth/api-keys/${(me.body as { key_id: string }).key_id}`)
      .set(bearer(b.adminKey))
      .expect(200);
    const refused = await greet(a, key);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: 'Invalid API key' });
  });

  describe('a key changed on A, on the next request to B that has served it', () => {
    const patch = (id: string, body: Record<string, unknown>) =>
      a.http().patch(`/api/v1/auth/api-keys/${id}`).set(bearer(a.adminKey)).send(body).expect(200);
    const me = (t: TestApp, key: string) => t.http().get('/api/v1/auth/me').set(bearer(key));

    // Each case serves the key on B first, so that B holds its record between calls.
    it('refuses a key revoked or disabled, and accepts it again once enabled', async () => {
      const { key, id } = await a.createKeyWithId({ plan: 'unlimited' });
      expect((await greet(b, key)).status).toBe(200);
      await patch(id, { enabled: false });
      expect((await greet(b, key)).status).toBe(401);
      await patch(id, { enabled: true });
      expect((await greet(b, key)).status).toBe(200);
      await a.http().delete(`/api/v1/auth/api-keys/${id}`).set(bearer(a.adminKey)).expect(200);
      const refused = await greet(b, key);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ detail: 'Invalid API key' });
      expect((await me(b, key)).status).toBe(401);
    });

    it('applies scopes taken away and given back', async () => {
      const { key, id } = await a.createKeyWithId({
        scope_template: 'standard',
        plan: 'unlimited',
      });
      expect((await greet(b, key)).status).toBe(200);
      await patch(id, { scopes: ['services:read'] });
      expect((await greet(b, key)).status).toBe(403);
      expect((await me(b, key)).body).toMatchObject({ scopes: ['services:read'] });
      await patch(id, { scopes: ['services:read', 'services:execute'] });
      const again = await greet(b, key);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ message: 'Hello, Ada!', times: 1 });
    });

    it('applies a new rate limit and daily limit at once, counting nothing twice', async () => {
      const { key, id } = await a.createKeyWithId({ plan: 'unlimited', rate_limit: 1000 });
      expect((await greet(b, key)).status).toBe(200);
      await patch(id, { rate_limit: 50, daily_limit: 3 });
      const second = await greet(b, key);
      expect(second.status).toBe(200);
      expect(second.headers['x-ratelimit-limit']).toBe('50');
      expect(second.headers['x-quota-limit']).toBe('3');
      expect(second.headers['x-quota-used']).toBe('2');
      expect((await greet(b, key)).status).toBe(200);
      const refused = await greet(b, key);
      expect(refused.status).toBe(402);
      expect(refused.body.detail).toMatch(/^Daily request limit exceeded \(3\/3\)\./);
      expect((await usage(a, key)).used).toBe(3);
    });

    it('refuses a rotated-out secret and accepts the new one', async () => {
      const { key, id } = await a.createKeyWithId({ plan: 'unlimited' });
      expect((await greet(b, key)).status).toBe(200);
      const rotated = await a
        .http()
        .post(`/api/v1/auth/api-keys/${id}/rotate`)
        .set(bearer(a.adminKey))
        .send({})
        .expect(201);
      expect((await greet(b, key)).status).toBe(401);
      expect((await greet(b, (rotated.body as { key: string }).key)).status).toBe(200);
    });
  });

  it('costs one Redis command per tool call once an instance has served the key', async () => {
    const key = await a.createKey({ plan: 'unlimited', daily_limit: 1000 });
    expect((await greet(a, key)).status).toBe(200);
    const { sent, stop } = await watchCommands(redis.url);
    try {
      for (let i = 0; i < 10; i++) expect((await greet(a, key)).status).toBe(200);
      await until(() => sent.length >= 10, 'the commands of 10 calls');
      // The key's record checked, its rate window and its day's quota counted: one script.
      expect(sent).toEqual(Array(10).fill('evalsha'));
      expect((await usage(b, key)).used).toBe(11);
    } finally {
      stop();
    }
  });

  it('costs an MCP tools/call alone in its POST the key read and one script', async () => {
    const key = await a.createKey({ plan: 'unlimited', daily_limit: 1000 });
    const call = (id: number) =>
      a
        .http()
        .post('/mcp')
        .set(bearer(key))
        .set('Accept', 'application/json, text/event-stream')
        .send({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'greet', arguments: { name: 'Ada' } },
        });
    expect((await call(0)).status).toBe(200);
    const { sent, stop } = await watchCommands(redis.url);
    try {
      for (let i = 1; i <= 5; i++) {
        const answer = await call(i);
        expect(answer.status).toBe(200);
        expect(answer.body.result.isError).toBeUndefined();
        expect(answer.headers['x-ratelimit-remaining']).toBeDefined();
        expect(answer.headers['x-quota-used']).toBe(String(i + 1));
      }
      await until(() => sent.length >= 10, 'the commands of 5 calls');
      // The POST's key read fresh (a transport's own authentication), then its one message's rate
      // window and quota counted together, as a REST call's: not a rate script and a quota script.
      expect(sent).toEqual(Array(5).fill(['hgetall', 'evalsha']).flat());
      expect((await usage(b, key)).used).toBe(6);
    } finally {
      stop();
    }
  });

  it('shares one read of a key among the fresh reads asked together, never an earlier one', async () => {
    const key = await a.createKey({ plan: 'free', name: 'shared-read' });
    const hash = hashApiKey(key);
    const store = a.app.get(KeyStore);
    const { sent, stop } = await watchCommands(redis.url);
    try {
      const reads = await Promise.all(
        Array.from({ length: 20 }, () => store.findKeyByHash(hash, { fresh: true })),
      );
      expect(reads.every((r) => r?.name === 'shared-read' && Object.isFrozen(r))).toBe(true);
      await until(() => sent.includes('hgetall'), 'the read');
      // A change made elsewhere after that read is seen by the next fresh read.
      const id = reads[0]!.id;
      await b.app.get(KeyStore).updateKey(id, { plan: 'pro' });
      expect((await store.findKeyByHash(hash, { fresh: true }))?.plan).toBe('pro');
      await until(() => sent.filter((c) => c === 'hgetall').length >= 3, 'the later reads');
      // 20 fresh reads, one HGETALL; b's update (its own read back), and the read after it.
      expect(sent.filter((c) => c === 'hgetall')).toHaveLength(3);
    } finally {
      stop();
    }
  });

  it('answers 503 when Redis stops answering, and serves again once it answers', async () => {
    const key = await a.createKey({ plan: 'unlimited' });
    expect((await greet(a, key)).status).toBe(200);
    redis.pause();
    try {
      const refused = await greet(a, key);
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ detail: STORE_DOWN });
    } finally {
      redis.resume();
    }
    await until(async () => (await greet(a, key)).status === 200, 'serving again');
  });

  it("lets a round's calls die young once they are counted (no old-space table keeps them)", async () => {
    // The call counter gathers a round's calls in a Map. Emptied with clear(), a Map whose table
    // is in the old generation gets its next table there too, and the emptied table still holds
    // the round's calls: until the next full collection they survive every scavenge and are
    // promoted, each round's in turn (bench/history/2026-11.md, "Promoted garbage").
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;
    const oldSpace = () =>
      getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
    const id = (await a.app.get(KeyStore).listKeys()).find((k) => k.name === 'initial-admin')!.id;
    const limiter = a.app.get(KeyRateLimiter);
    const record = async () => (await a.app.get(KeyStore).findKeyById(id))!;
    /** One round with `payload` among its calls (about 400 KB of young objects). */
    const round = async (payload?: object) =>
      (await limiter.consume({ ...(await record()), payload } as ApiKeyRecord)).headers;
    // The least of five rounds: a round that the instances' own periodic work (their polls of the
    // store, every second) falls into promotes that work's objects too, more often when loaded.
    const promoted: number[] = [];
    for (let i = 0; i < 5; i++) {
      gc({ type: 'major' }); // the counter and its Map are old now, as in a long-running process
      await round(); // a first round after it, as on a busy server
      const before = oldSpace();
      const headers = await round(Array.from({ length: 10_000 }, (_, n) => ({ n })));
      expect(headers).toHaveProperty('X-RateLimit-Limit');
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc({ type: 'minor' });
      gc({ type: 'minor' });
      promoted.push(oldSpace() - before);
    }
    expect(Math.min(...promoted)).toBeLessThan(150_000);
  });

  it('keeps the connection made after a lost one: no timer of the lost one closes it', async () => {
    const client = a.app.get<RedisClient>(REDIS_CLIENT);
    redis.pause();
    // A command waits on the silent server, so ioredis arms its socket timer (3 s).
    const waiting = client.ping().catch(() => 'failed');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await redis.kill();
    expect(await waiting).toBe('failed');
    await redis.start();
    await until(() => client.status === 'ready', 'connected again');
    let closed = 0;
    const onClose = () => closed++;
    client.on('close', onClose);
    try {
      // Past the lost connection's timer: the new connection stays up and answers.
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      expect(closed).toBe(0);
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.off('close', onClose);
    }
  });

  it("calls B's override listeners within a second of a write on A", async () => {
    const heardOnB = (what: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`B did not hear: ${what}`)), 1000);
        const off = b.app.get(OverrideStore).onOverridesChanged(() => {
          clearTimeout(timer);
          off();
          resolve();
        });
      });

    let heard = heardOnB('set');
    await a.app.get(OverrideStore).setOverride('llm_config.cache_enabled', false);
    await heard;
    expect(await b.app.get(OverrideStore).getOverrides()).toEqual({
      'llm_config.cache_enabled': false,
    });

    heard = heardOnB('delete');
    await a.app.get(OverrideStore).deleteOverride('llm_config.cache_enabled');
    await heard;
    expect(await b.app.get(OverrideStore).getOverrides()).toEqual({});
  });

  it("reads back on B a config_set made through A, and applies it to B's logger within a second", async () => {
    const key = a.adminKey;
    const set = await a
      .http()
      .post('/api/v1/services/config_set')
      .set(bearer(key))
      .send({ key: 'logging.level', value: 'DEBUG' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ key: 'logging.level', coerced_value: 'debug' });
    // Reads go to the store: B sees the override at once.
    const got = await b
      .http()
      .post('/api/v1/services/config_get')
      .set(bearer(key))
      .send({ key: 'logging.level' });
    expect(got.body).toEqual({ key: 'logging.level', value: 'debug' });
    // B's running logger follows through pub/sub.
    const control = b.app.get(LogControl);
    for (let i = 0; i < 20 && control.level !== 'debug'; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(control.level).toBe('debug');
    await a
      .http()
      .post('/api/v1/services/config_set')
      .set(bearer(key))
      .send({ key: 'logging.level', value: 'info' })
      .expect(200);
    for (let i = 0; i < 20 && control.level !== 'info'; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(control.level).toBe('info');
    await a.app.get(OverrideStore).deleteOverride('logging.level');
  });

  it('shares a rate limit: 2 a second over A and B together', async () => {
    // The window is one second from the first call: a burst that took longer proves nothing, so
    // it is repeated (with a fresh key) rather than judged.
    for (let attempt = 1; ; attempt++) {
      const key = await a.createKey({ plan: 'unlimited', rate_limit: 2 });
      const started = Date.now();
      const statuses = (await burst(6, key)).map((r) => r.status);
      if (Date.now() - started > 800 && attempt < 3) continue;
      expect(statuses.sort()).toEqual([200, 200, 429, 429, 429, 429]);
      return;
    }
  });

  it('shares the failed-authentication limit of a client address', async () => {
    const bad = `sk_${'0'.repeat(64)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 12 && !statuses.includes(429); i++) {
      statuses.push((await greet(i % 2 ? b : a, bad)).status);
    }
    // Counted per instance, 10 failures (5 on each) would pass before the first 429.
    expect(count(statuses, 401)).toBeLessThanOrEqual(5);
    expect(statuses.at(-1)).toBe(429);
    expect((await greet(a, bad)).status).toBe(429);
    expect((await greet(b, bad)).status).toBe(429);
  });

  it('counts a daily limit of 20 exactly over 60 concurrent calls on A and B', async () => {
    const key = await a.createKey({ daily_limit: 20, rate_limit: 1000 });
    const responses = await burst(60, key);
    const statuses = responses.map((r) => r.status);
    expect(count(statuses, 200)).toBe(20);
    expect(count(statuses, 402)).toBe(40);
    const refused = responses.find((r) => r.status === 402) as Response;
    expect(refused.body.detail).toMatch(
      /^Daily request limit exceeded \(20\/20\)\. Resets in \d+h \d+m\.$/,
    );
    expect((await usage(a, key)).used).toBe(20);
    expect((await usage(b, key)).used).toBe(20);
  });

  it(
    'creates through the CLI a key both instances accept',
    async () => {
      const created = await runCli(
        ['keys', 'create', '--json', '--name', 'from-cli', '--template', 'standard'],
        { REDIS_URL: redis.url, REDIS_KEY_PREFIX: PREFIX, DATA_DIR: tempDataDir() },
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
      expect((await greet(a, key)).status).toBe(200);
      expect((await greet(b, key)).status).toBe(200);
      const listed = await runCli(['keys', 'list', '--json'], {
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: PREFIX,
        DATA_DIR: tempDataDir(),
      });
      expect((JSON.parse(listed.stdout) as { id: string }[]).map((k) => k.id)).toContain(id);
    },
    CLI_TIMEOUT_MS,
  ); // runs the compiled CLI several times

  it('creates one initial key when two stores race on an empty Redis', async () => {
    const settings = loadSettings({
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: 'tis-race:',
      DATA_DIR: tempDataDir(),
    });
    const backends = await Promise.all([openBackend(settings), openBackend(settings)]);
    const keys = await Promise.all(backends.map(async (backend) => makeStore(backend, KEY_STORE)));
    try {
      const record = (i: number): ApiKeyRecord => ({
        id: `key_race${i}`,
        name: `race-${i}`,
        prefix: 'sk_race',
        hash: `hash-${i}`,
        external_id: null,
        scopes: ['*'],
        plan: 'unlimited',
        daily_limit: null,
        monthly_limit: null,
        rate_limit: null,
        created_at: new Date().toISOString(),
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
        enabled: true,
        previous_hash: null,
        previous_key_expires_at: null,
      });
      const records = Array.from({ length: 10 }, (_, i) => record(i));
      const inserted = await Promise.all(records.map((r, i) => keys[i % 2].insertKeyIfNone(r)));
      expect(inserted.filter(Boolean)).toHaveLength(1);
      // As inserted, with the revision every record starts at.
      const winner = { ...records[inserted.indexOf(true)], revision: 1 };
      expect(await keys[0].listKeys()).toEqual([winner]);
      expect(await keys[1].listKeys()).toEqual([winner]);
    } finally {
      await Promise.all(backends.map((backend) => storeOf(backend).close()));
    }
  });

  it('writes every key under its prefix', async () => {
    // Something of every kind: keys, a daily count, a rate window, an override, failed logins.
    const key = await a.createKey({ daily_limit: 5, rate_limit: 100 });
    expect((await greet(b, key)).status).toBe(200);
    await a.app.get(OverrideStore).setOverride('logging.verbose', false);
    expect((await greet(a, `sk_${'0'.repeat(64)}`)).status).toBe(401);
    const raw = new Redis(redis.url);
    try {
      const keys = await raw.keys('*');
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((k) => !k.startsWith(PREFIX) && !k.startsWith('tis-race:'))).toEqual([]);
      // The throttler's counters too (those of failed authentications live a minute).
      expect(keys.some((k) => k.startsWith(`${PREFIX}{auth-failure:`))).toBe(true);
    } finally {
      raw.disconnect();
    }
  });

  it('answers 503 while Redis is down, serves nothing uncounted, and recovers by itself', async () => {
    const key = await a.createKey({ plan: 'unlimited' });
    const statuses: number[] = [];
    const unavailable: Response[] = [];
    let done = false;
    /** One call; its status goes into `into`, a 503 into `unavailable` too. */
    const call = async (t: TestApp, into: number[]) => {
      const res = await greet(t, key);
      into.push(res.status);
      if (res.status === 503) unavailable.push(res);
      return res.status;
    };
    const worker = async (t: TestApp) => {
      for (let i = 0; i < 300 && !done; i++) await call(t, statuses);
    };
    const workers = [a, b, a, b].map(worker);
    await until(() => count(statuses, 200) >= 20 || done, 'calls served before the stop');
    await redis.stop();
    const stoppedAt = statuses.length;
    await until(() => count(statuses.slice(stoppedAt), 503) >= 8, 'calls refused while down');
    done = true;
    await Promise.all(workers);

    expect(new Set(statuses)).toEqual(new Set([200, 503]));
    for (const res of unavailable) {
      expect(res.body).toEqual({ detail: STORE_DOWN });
      expect(res.headers['retry-after']).toBe('1');
    }
    // Logged at warn, never with the URL's password. (Nest's Logger is process-wide: the lines of
    // both instances land in the capture of the last one started.)
    const logs = () => [a, b].flatMap((t) => t.logs.records());
    await until(
      () => logs().some((r) => r.level === 'warn' && /^Redis at/.test(String(r.msg))),
      'a warning about Redis',
    );
    const text = a.logs.text() + b.logs.text();
    expect(text).toContain(`Redis at redis://:****@127.0.0.1:${redis.port}`);
    expect(text).not.toContain(PASSWORD);

    await redis.start();
    // Every answer of the polls counts too: one instance may serve (and count) for a while before
    // the other has its connection back.
    const recovering: number[] = [];
    await until(
      async () => (await call(a, recovering)) === 200 && (await call(b, recovering)) === 200,
      'both instances serving again',
    );
    expect(recovering.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    const served = count(statuses, 200) + count(recovering, 200);
    const { used } = await usage(a, key);
    // Every 200 was counted first; a call cut off mid-way may have been counted and not served.
    expect(used).toBeGreaterThanOrEqual(served);
    expect(used).toBeLessThanOrEqual(served + unavailable.length);
  });

  it('keeps keys, counts and overrides across a Redis restart (AOF)', async () => {
    const key = await b.createKey({ daily_limit: 5, rate_limit: 100 });
    for (let i = 0; i < 3; i++) expect((await greet(i % 2 ? b : a, key)).status).toBe(200);
    await a.app.get(OverrideStore).setOverride('logging.verbose', false);
    let reloadsOnB = 0;
    const off = b.app.get(OverrideStore).onOverridesChanged(() => reloadsOnB++);

    await redis.restart();
    await until(async () => (await greet(a, key)).status === 200, 'A serving again');

    expect((await usage(b, key)).used).toBe(4);
    expect(await b.app.get(OverrideStore).getOverrides()).toEqual({ 'logging.verbose': false });
    expect(await a.app.get(Store).checkIntegrity()).toEqual([]);
    // Announcements sent while B was cut off are lost: B reloads when its subscriber is back.
    await until(() => reloadsOnB > 0, "B's listeners called after reconnecting");
    off();
    expect((await greet(b, key)).status).toBe(200);
    const last = await greet(a, key);
    expect(last.status).toBe(402);
    expect(last.body.detail).toMatch(/^Daily request limit exceeded \(5\/5\)\./);
  });
});
