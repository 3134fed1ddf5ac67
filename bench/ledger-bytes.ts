/**
 * What a ledger entry costs each store (docs/runs-and-ledger.md, "What an entry costs the store"):
 * ENTRIES charges (100,000 by default) of one key, in a run, written the way calls write them (the
 * usage store's count, in batches of a round's size), then the SQLite file's growth (checkpointed,
 * its indexes included) and Redis's `used_memory` growth (the entry, its subject's id set, the
 * time index), each divided by the entries.
 *
 *   npm run bench:ledger-bytes        (ENTRIES=<n>)
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { loadSettings } from '../src/kernel/settings/settings';
import { makeStore, openBackend, storeOf } from '../src/kernel/store/store.module';
import { USAGE_STORE } from '../src/limits/limits.stores';
import type { QuotaCharge } from '../src/limits/usage.store';
import { parseInfo } from '../src/kernel/store/redis/redis.connection';
import { greetCharge } from './greet-charge';
import { removeDir, startRedis, tempDir } from './lib';

const ENTRIES = Number(process.env.ENTRIES ?? 100_000);
const BATCH = 200;
const KEY = 'key_0123456789abcdef';
const RUN = { id: 'run_0193f5a2c4e1c0ffee0123456789abcd', budget: 1_000_000_000 };

/** Writes the entries, a batch at a time (what one round of the event loop counts together). */
async function fill(consume: (charge: QuotaCharge) => Promise<unknown>): Promise<void> {
  const start = Date.now();
  for (let i = 0; i < ENTRIES; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, ENTRIES - i) }, (_, j) =>
      consume(greetCharge(i + j, start + i + j, KEY, RUN)),
    );
    await Promise.all(batch);
  }
}

async function sqlite(): Promise<number> {
  const dir = tempDir('tis-ledger-bytes-');
  try {
    const backend = await openBackend(loadSettings({ DATA_DIR: dir }));
    const store = await makeStore(backend, USAGE_STORE);
    const db = backend.kind === 'sqlite' ? backend.sqlite : undefined;
    const size = () => {
      db?.counters.pragma('wal_checkpoint(TRUNCATE)');
      return statSync(join(dir, 'service.db')).size;
    };
    const before = size();
    await fill((c) => store.consumeQuota(KEY, c));
    const after = size();
    await storeOf(backend).close();
    return (after - before) / ENTRIES;
  } finally {
    removeDir(dir);
  }
}

async function redis(): Promise<number | undefined> {
  const server = await startRedis();
  if (!server) return undefined;
  const admin = new Redis(server.url);
  try {
    const backend = await openBackend(
      loadSettings({ DATA_DIR: tempDir('tis-ledger-bytes-'), REDIS_URL: server.url }),
    );
    const store = await makeStore(backend, USAGE_STORE);
    const used = async () => Number(parseInfo(await admin.info('memory')).used_memory);
    const before = await used();
    await fill((c) => store.consumeQuota(KEY, c));
    const after = await used();
    const index = Number(await admin.call('MEMORY', 'USAGE', 'tis:{ledger}:index', 'SAMPLES', '0'));
    console.log(
      `Redis: the time index ({ledger}:index) ${(index / ENTRIES).toFixed(0)} bytes an entry`,
    );
    await storeOf(backend).close();
    return (after - before) / ENTRIES;
  } finally {
    admin.disconnect();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const onSqlite = await sqlite();
  const onRedis = await redis();
  const million = (bytes: number) => `${((bytes * 1_000_000) / 1024 ** 2).toFixed(0)} MiB`;
  console.log(`${ENTRIES} entries of one key in one run`);
  console.log(`SQLite: ${onSqlite.toFixed(0)} bytes an entry (a million: ${million(onSqlite)})`);
  if (onRedis === undefined) console.log('Redis: skipped (no redis-server on the PATH)');
  else console.log(`Redis:  ${onRedis.toFixed(0)} bytes an entry (a million: ${million(onRedis)})`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
