import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  let dir: string;
  let db: Database.Database;
  let commits: number;
  let group: GroupCommit;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tis-group-'));
    db = new Database(join(dir, 'g.db'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)');
    commits = 0;
    group = new GroupCommit(
      db,
      (error) => new Error(`failed: ${(error as Error).message}`),
      () => commits++,
    );
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (k: string, v: number) =>
    group.write(() => db.prepare('INSERT INTO t (k, v) VALUES (?, ?)').run(k, v).changes);
  const rows = () => db.prepare('SELECT k, v FROM t ORDER BY k').all();

  it('commits the writes of one round of the event loop together, each answered with its value', async () => {
    const answers = await Promise.all([insert('a', 1), insert('b', 2), insert('c', 3)]);
    expect(answers).toEqual([1, 1, 1]);
    expect(commits).toBe(1);
    expect(rows()).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
      { k: 'c', v: 3 },
    ]);
    await insert('d', 4);
    expect(commits).toBe(2);
  });

  it('undoes a write that throws, whole, and answers it alone; the others commit', async () => {
    const twoRows = group.write(() => {
      db.prepare('INSERT INTO t (k, v) VALUES (?, ?)').run('x', 1);
      db.prepare('INSERT INTO t (k, v) VALUES (?, ?)').run('y', null);
    });
    const [first, broken, last] = await Promise.allSettled([
      insert('a', 1),
      twoRows,
      insert('b', 2),
    ]);
    expect(first).toEqual({ status: 'fulfilled', value: 1 });
    expect(broken.status).toBe('rejected');
    expect(String((broken as PromiseRejectedResult).reason)).toMatch(/^Error: failed: NOT NULL/);
    expect(last).toEqual({ status: 'fulfilled', value: 1 });
    expect(rows()).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
    ]);
  });

  it('answers every write of a commit that fails with its failure, nothing of it written', async () => {
    const other = new Database(join(dir, 'g.db'), { timeout: 0 });
    db.pragma('busy_timeout = 0');
    other.prepare('BEGIN IMMEDIATE').run();
    const answers = await Promise.allSettled([insert('a', 1), insert('b', 2)]);
    other.prepare('ROLLBACK').run();
    other.close();
    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    expect(String((answers[0] as PromiseRejectedResult).reason)).toMatch(
      /failed: database is locked/,
    );
    expect(commits).toBe(0);
    expect(rows()).toEqual([]);
  });

  it('commits what is pending at once when asked (the store closing)', () => {
    const pending = insert('a', 1);
    group.commit();
    expect(rows()).toEqual([{ k: 'a', v: 1 }]);
    return expect(pending).resolves.toBe(1);
  });
});
