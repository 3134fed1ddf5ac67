import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKPOINT_AT_THE_LATEST, SqliteStore } from './sqlite.store';

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

  // Frames in the WAL file: a 32-byte header, then a 24-byte header and a 4 KiB page per frame. The
  // file keeps its largest size: after a checkpoint SQLite writes it again from the start.
  const walFrames = () => (statSync(`${store.file}-wal`).size - 32) / (24 + 4096);
  // A count in a loop of awaits never lets the event loop reach its I/O phase, so the WAL sync
  // started after 1,000 counts cannot complete during such a loop.
  const count = async (n: number) => {
    for (let i = 0; i < n; i++) await store.consumeQuota('k', '2031-01-01', null);
  };

  it('checkpoints the WAL after the counts, not inside one, and SQLite then writes it from the start', async () => {
    await count(1500);
    // The 1,000th count did not checkpoint (one frame per count so far).
    expect(walFrames()).toBeGreaterThanOrEqual(1500);
    await store.settled();
    await count(1000);
    // Synced and checkpointed between the two runs: the second wrote over the first.
    expect(walFrames()).toBeLessThan(1600);
    expect(await store.getUsage('k', '2031-01-01')).toBe(2500);
  });

  it('bounds the WAL even when the event loop never turns between counts', async () => {
    await count(5000);
    // Without checkpoints this WAL would hold 5,000 frames (20 MB); the few more are the schema's.
    expect(walFrames()).toBeLessThanOrEqual(CHECKPOINT_AT_THE_LATEST + 50);
    expect(await store.getUsage('k', '2031-01-01')).toBe(5000);
  });
});
