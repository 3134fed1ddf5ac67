import { LongRunningCalls } from '../../src/invocations/long-running-calls';
import { SqliteDatabase } from '../../src/kernel/store/sqlite/sqlite.database';
import { Store } from '../../src/kernel/store/store';
import { bearer, startApp, TestApp } from '../support/app';
import { usingSharedRedis } from '../support/redis';
import { RuntimeToolsModule } from '../support/runtime-tools.module';

/**
 * Accepting a long-running call writes what the same call made synchronously writes (its
 * credits), plus its record: no lease, no reservation, nothing else on the request's path. Counted
 * as SQLite counts rows written (`total_changes()`) on both connections of the embedded store.
 */
(usingSharedRedis() ? describe.skip : describe)(
  'What accepting a long-running call writes (e2e, SQLite)',
  () => {
    let t: TestApp;
    let key: string;
    let sqlite: SqliteDatabase;

    beforeAll(async () => {
      t = await startApp({ imports: [RuntimeToolsModule] });
      key = await t.createKey({ plan: 'pro', rate_limit: 1000 });
      sqlite = t.app.get<Store, SqliteDatabase>(Store);
      // The instance's own timer (lease renewals, sweeps) writes on a clock of its own: stopped, so
      // that only what the requests write is counted.
      await t.app.get(LongRunningCalls).onApplicationShutdown();
    });
    afterAll(async () => {
      await t.close();
    });

    const rowsWritten = () =>
      (sqlite.db.prepare('SELECT total_changes()').pluck().get() as number) +
      (sqlite.counters.prepare('SELECT total_changes()').pluck().get() as number);
    const call = (body: object, headers: Record<string, string> = {}) =>
      t.http().post('/api/v1/services/slow').set(bearer(key)).set(headers).send(body);
    const writesOf = async (send: () => Promise<{ status: number }>, status: number) => {
      const before = rowsWritten();
      expect((await send()).status).toBe(status);
      return rowsWritten() - before;
    };

    it('is a sync call of the same tool plus one record', async () => {
      // The key's first calls write what later ones do not (when it was last used).
      for (let i = 0; i < 3; i++) expect((await call({ ms: 0 })).status).toBe(200);
      const sync = await writesOf(() => call({ ms: 0 }), 200);
      const accepted = await writesOf(() => call({ ms: 2_000 }, { Prefer: 'respond-async' }), 202);
      expect(sync).toBeGreaterThan(0);
      expect(accepted).toBe(sync + 1);
    });
  },
);
