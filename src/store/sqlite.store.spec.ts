import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from './sqlite.store';

describe('SqliteStore quota counters', () => {
  let store: SqliteStore;

  beforeEach(() => {
    store = new SqliteStore(mkdtempSync(join(tmpdir(), 'tis-sqlite-')));
  });
  afterEach(() => store.close());

  it('counts up to the limit and refuses past it, without counting the refusals', async () => {
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await store.consumeQuota('k', '2031-01-01', 3));
    expect(results).toEqual([
      { allowed: true, used: 1 },
      { allowed: true, used: 2 },
      { allowed: true, used: 3 },
      { allowed: false, used: 3 },
      { allowed: false, used: 3 },
    ]);
    expect(await store.getUsage('k', '2031-01-01')).toBe(3);
  });

  it('keeps days and keys apart, counts without limit when the limit is null, refuses a limit of 0', async () => {
    await store.consumeQuota('k', '2031-01-01', 1);
    expect(await store.consumeQuota('k', '2031-01-02', 1)).toEqual({ allowed: true, used: 1 });
    expect(await store.consumeQuota('other', '2031-01-01', 1)).toEqual({ allowed: true, used: 1 });
    for (let i = 0; i < 3; i++) await store.consumeQuota('free', '2031-01-01', null);
    expect(await store.getUsage('free', '2031-01-01')).toBe(3);
    expect(await store.consumeQuota('none', '2031-01-01', 0)).toEqual({ allowed: false, used: 0 });
    expect(await store.getUsage('none', '2031-01-01')).toBe(0);
  });

  it('keeps the write-ahead log small under a steady stream of counts', async () => {
    for (let i = 0; i < 2500; i++) await store.consumeQuota('k', '2031-01-01', null);
    // Without checkpoints this WAL would hold a 4 KiB page per count (about 10 MB here).
    expect(statSync(`${store.file}-wal`).size).toBeLessThan(6 * 1024 * 1024);
    expect(await store.getUsage('k', '2031-01-01')).toBe(2500);
  });
});
