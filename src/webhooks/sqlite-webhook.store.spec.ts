import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { WEBHOOK_MIGRATIONS } from './sqlite-webhook.schema';
import { SqliteWebhookStore } from './sqlite-webhook.store';

const T0 = '2026-11-27T08:00:00.000Z';

describe('the webhook outbox of an earlier schema', () => {
  let dir: string;
  let database: SqliteDatabase | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tis-webhooks-'));
  });
  afterEach(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is each endpoint's after the migration: its pending counted, claimed per endpoint", async () => {
    database = new SqliteDatabase(dir);
    database.ensureSchema('webhooks', WEBHOOK_MIGRATIONS.slice(0, 1));
    const { db } = database;
    db.prepare(
      `INSERT INTO webhook_endpoints (id, url, events, enabled, secrets, created_at, updated_at)
       VALUES (?, 'https://hooks.example/a', '["*"]', 1, '[]', ?, ?)`,
    ).run('wh_a', T0, T0);
    const insert = db.prepare(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, type, payload, attempt, status,
         at, next_attempt_at)
       VALUES (?, 'wh_a', ?, 'webhook.test', '{}', 0, ?, ?, ?)`,
    );
    insert.run('dlv_1', 'msg_1', 'pending', T0, T0);
    insert.run('dlv_2', 'msg_2', 'pending', T0, T0);
    insert.run('dlv_3', 'msg_3', 'succeeded', T0, null);

    const store = new SqliteWebhookStore(database);
    expect(await store.getEndpoint('wh_a')).toMatchObject({
      consecutive_failures: 0,
      backlog_failed: 0,
      backlog_failed_at: null,
    });
    expect(await store.pendingCount()).toBe(2);
    const limits = { total: 10, perEndpoint: 1, failingAfter: 5, inFlight: new Map() };
    expect((await store.claimDue(T0, T0, limits)).map((d) => d.id)).toEqual(['dlv_1']);
    expect(await store.moveEarlierOutbox()).toBe(0);
  });
});
