import type Database from 'better-sqlite3';
import Redis from 'ioredis';
import { loadSettings } from '../../src/kernel/settings/settings';
import { openBackend, StoreBackend, storeOf } from '../../src/kernel/store/store.module';
import { RedisServer } from './redis';

/**
 * What a store read while `read` ran, as the store sent it: on SQLite each statement (its text) and
 * its query plan (`EXPLAIN QUERY PLAN` of the statement with the values it ran with); on Redis each
 * command with its arguments, as MONITOR saw it arrive from the store's connection (or from a
 * script the store ran).
 */
export interface StoreRead {
  /** The statement's text, or the command and its arguments. */
  sent: string;
  /** SQLite: the plan's steps (`SEARCH api_keys USING INDEX ...`). */
  plan?: string[];
}

/** A store backend of the spec's own, and the reads of its stores counted one measure at a time. */
export interface CountedBackend {
  backend: StoreBackend;
  /** What the stores read while `read` ran (nothing else runs on the backend meanwhile). */
  measure(read: () => Promise<unknown>): Promise<StoreRead[]>;
  close(): Promise<void>;
}

interface Ran {
  statement: Database.Statement;
  args: unknown[];
  db: Database.Database;
}

/**
 * Every statement prepared on `db` from now on records itself in `ran` when it runs (its text, its
 * values), while `recording()` holds. The stores prepare their statements when they are made: make
 * them after this.
 */
function traceStatements(db: Database.Database, recording: () => Ran[] | undefined): void {
  const prepare = db.prepare.bind(db) as (
    sql: string,
    ...internal: unknown[]
  ) => Database.Statement;
  db.prepare = ((sql: string, ...internal: unknown[]) => {
    const statement = prepare(sql, ...internal);
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, {
        value: (...args: unknown[]) => {
          recording()?.push({ statement, args, db });
          return original(...args);
        },
      });
    }
    return statement;
  }) as typeof db.prepare;
}

/** The plan SQLite makes of a statement that ran, with the values it ran with. */
function planOf({ statement, args, db }: Ran): string[] {
  const explain = db.prepare(`EXPLAIN QUERY PLAN ${statement.source}`);
  return (explain.all(...args) as { detail: string }[]).map((step) => step.detail);
}

/**
 * An embedded store in `dataDir`, its statements traced. Its file is the spec's scratch: it is
 * written without waiting for the disk (synchronous = OFF), which changes no plan.
 */
export async function countedSqlite(dataDir: string): Promise<CountedBackend> {
  const backend = await openBackend(loadSettings({ DATA_DIR: dataDir }));
  if (backend.kind !== 'sqlite') throw new Error('expected the embedded store');
  const { sqlite } = backend;
  let ran: Ran[] | undefined;
  for (const db of [sqlite.db, sqlite.counters]) {
    db.pragma('synchronous = OFF');
    traceStatements(db, () => ran);
  }
  return {
    backend,
    async measure(read) {
      ran = [];
      try {
        await read();
        return ran
          .filter((r) => !/^\s*PRAGMA/i.test(r.statement.source))
          .map((r) => ({ sent: r.statement.source.replace(/\s+/g, ' ').trim(), plan: planOf(r) }));
      } finally {
        ran = undefined;
      }
    },
    close: () => storeOf(backend).close(),
  };
}

/**
 * A Redis store on a redis-server of the spec's own, and the commands its connection sends, as
 * MONITOR sees them (a watch opened for each measure). A measure ends with an ECHO of its own on
 * the store's connection: once MONITOR shows it, every command sent before it has been seen.
 */
export async function countedRedis(dataDir: string): Promise<CountedBackend> {
  const server = await RedisServer.start();
  const backend = await openBackend(
    loadSettings({ DATA_DIR: dataDir, REDIS_URL: server.url, REDIS_KEY_PREFIX: 'page-cost:' }),
  );
  if (backend.kind !== 'redis') throw new Error('expected the Redis store');
  const { client } = backend.redis;
  const info = await client.client('INFO');
  const address = /\baddr=(\S+)/.exec(info)?.[1];
  let marks = 0;
  return {
    backend,
    async measure(read) {
      const watcher = new Redis(server.url);
      const monitor = await watcher.monitor();
      const seen: StoreRead[] = [];
      const mark = `page-cost-mark-${++marks}`;
      let marked: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (marked = resolve));
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (source !== address && source !== 'lua') return;
        if (args[0].toLowerCase() === 'echo' && args[1] === mark) marked();
        else seen.push({ sent: args.join(' ') });
      });
      try {
        await read();
        await client.echo(mark);
        await done;
        return seen;
      } finally {
        monitor.disconnect();
        watcher.disconnect();
      }
    },
    async close() {
      await storeOf(backend).close();
      await server.destroy();
    },
  };
}
