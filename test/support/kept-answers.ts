import Database from 'better-sqlite3';
import { join } from 'node:path';
import { REDIS_CLIENT, RedisClient } from '../../src/kernel/store/redis/redis.connection';
import type { TestApp } from './app';

/**
 * What the store really holds of a key's kept idempotent answers, read from the storage itself
 * (the SQLite file, or Redis), not from the service's own accounting: entries, and their bytes.
 */
export async function keptAnswers(
  t: TestApp,
  keyId: string,
): Promise<{ entries: number; bytes: number }> {
  const redis = t.app.get<RedisClient | null>(REDIS_CLIENT);
  if (redis) {
    const values = await redis.hvals(`{${keyId}}:idem`);
    return {
      entries: values.length,
      bytes: values.reduce((sum, value) => sum + Buffer.byteLength(value), 0),
    };
  }
  const db = new Database(join(t.dataDir, 'service.db'), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT COUNT(*) AS entries,
           COALESCE(SUM(LENGTH(CAST(COALESCE(body, '') AS BLOB)) + LENGTH(scope)), 0) AS bytes
         FROM idempotency WHERE key_id = ?`,
      )
      .get(keyId) as { entries: number; bytes: number };
  } finally {
    db.close();
  }
}
