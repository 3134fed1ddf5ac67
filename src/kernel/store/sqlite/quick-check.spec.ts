import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreUnavailableError } from '../store';
import { SqliteDatabase } from './sqlite.database';

/** The embedded store's integrity check (doctor's `store`), run in a worker thread. */
describe('SqliteDatabase.checkIntegrity', () => {
  let database: SqliteDatabase;

  beforeEach(() => {
    database = new SqliteDatabase(mkdtempSync(join(tmpdir(), 'tis-quick-check-')));
  });
  afterEach(async () => {
    if (database.db.open) await database.close();
  });

  it('finds nothing in an intact file, and calls at once share one check', async () => {
    database.db.exec('CREATE TABLE filler (n INTEGER PRIMARY KEY, text TEXT)');
    const insert = database.db.prepare('INSERT INTO filler (text) VALUES (?)');
    for (let i = 0; i < 2_000; i++) insert.run('x'.repeat(200));
    const first = database.checkIntegrity();
    expect(database.checkIntegrity()).toBe(first);
    await expect(first).resolves.toEqual([]);
    // Once answered, the next call checks afresh.
    const next = database.checkIntegrity();
    expect(next).not.toBe(first);
    await expect(next).resolves.toEqual([]);
  });

  it('is the store unavailable when the file on disk is no database any more', async () => {
    const garbage = Buffer.alloc(8192, 0x41);
    writeFileSync(database.file, garbage);
    writeFileSync(`${database.file}-wal`, garbage);
    const failure = await database.checkIntegrity().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect((failure as Error).message).toMatch(
      /^SQLite store failed: SQLITE_(NOTADB|CORRUPT|IOERR)/,
    );
  });

  it('is the store unavailable once closed', async () => {
    await database.close();
    await expect(database.checkIntegrity()).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
