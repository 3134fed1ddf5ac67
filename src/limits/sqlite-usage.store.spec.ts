import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { SqliteUsageStore } from './sqlite-usage.store';
import { dayBefore, type QuotaCharge } from './usage.store';

/** A day far enough ahead that the store's own start-up prune (today's) leaves what is counted. */
const TODAY = '2030-01-10';
const OLD = dayBefore(TODAY, 100);
const KEPT = dayBefore(TODAY, 89);
/** More keys than one slice of the prune deletes. */
const KEYS = Array.from({ length: 2_500 }, (_, i) => `key_${String(i).padStart(16, '0')}`);

const charge = (day: string, tool = 'greet'): QuotaCharge => ({
  day,
  dailyLimit: null,
  month: day.slice(0, 7),
  monthlyLimit: null,
  cost: 2,
  tool,
});

describe('SQLite usage retention', () => {
  let dir: string;
  let sqlite: SqliteDatabase;
  let store: SqliteUsageStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tis-usage-'));
    sqlite = new SqliteDatabase(dir);
    store = new SqliteUsageStore(sqlite);
  });
  afterEach(async () => {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('forgets the days past 90 and the months before this one, in slices, counting on between', async () => {
    // The latest day first: a count of a later day than any before starts the prune.
    await Promise.all(KEYS.map((key) => store.consumeQuota(key, charge(KEPT))));
    await Promise.all(KEYS.map((key) => store.consumeQuota(key, charge(OLD, 'doctor'))));
    await store.pruned();
    expect(await store.getUsage(KEYS[0], OLD)).toBe(2);

    await store.consumeQuota(KEYS[0], charge(TODAY));
    let done = false;
    const pruned = store.pruned().then(() => (done = true));
    // A count asked while the prune runs is answered before it ends: it holds no round for long.
    expect(await store.consumeQuota(KEYS[1], charge(TODAY))).toMatchObject({ allowed: true });
    expect(done).toBe(false);
    await pruned;

    for (const key of [KEYS[0], KEYS[1_234], KEYS[2_499]]) {
      expect(await store.getUsage(key, OLD)).toBe(0);
      expect(await store.getUsageDays(key, [OLD])).toEqual([{ used: 0, byTool: {} }]);
      expect(await store.getMonthUsage(key, OLD.slice(0, 7))).toBe(0);
      expect(await store.getUsage(key, KEPT)).toBe(2);
      expect((await store.getUsageDays(key, [KEPT]))[0]).toMatchObject({
        used: 2,
        byTool: { greet: expect.objectContaining({ calls: 1, credits: 2 }) },
      });
    }
    expect(await store.getUsage(KEYS[0], TODAY)).toBe(2);
    expect(await store.getMonthUsage(KEYS[0], TODAY.slice(0, 7))).toBe(2);
  });

  it('walks the keys once a day: a restart on a day already pruned leaves the counters alone', async () => {
    await store.consumeQuota(KEYS[0], charge(TODAY));
    await store.pruned();
    // Counted after the prune of TODAY: it stays until the next day's.
    await store.consumeQuota(KEYS[1], charge(OLD));
    await store.pruned();

    const again = new SqliteDatabase(dir);
    try {
      const restarted = new SqliteUsageStore(again);
      await restarted.consumeQuota(KEYS[2], charge(TODAY));
      await restarted.pruned();
      expect(await restarted.getUsage(KEYS[1], OLD)).toBe(2);

      await restarted.consumeQuota(KEYS[2], charge(dayBefore(TODAY, -1)));
      await restarted.pruned();
      expect(await restarted.getUsage(KEYS[1], OLD)).toBe(0);
      expect(await restarted.getUsage(KEYS[0], TODAY)).toBe(2);
    } finally {
      await again.close();
    }
  });
});
