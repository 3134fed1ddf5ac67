import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import {
  ACTIVE_STATUSES,
  InvocationChanges,
  InvocationPosition,
  InvocationRecord,
  InvocationStatus,
  InvocationStore,
} from './invocation.store';
import { INVOCATION_MIGRATIONS } from './sqlite-invocation.schema';

/** JSON columns, and the flag, as the row holds them. */
const JSON_FIELDS = ['progress', 'result', 'error', 'charge_entry'] as const;

/** Expired calls forgotten in one group commit of the purge. */
const PURGE_SLICE = 1000;

interface InvocationRow extends Omit<
  InvocationRecord,
  'progress' | 'result' | 'error' | 'cancel_requested' | 'charge_entry'
> {
  progress: string | null;
  charge_entry: string | null;
  result: string | null;
  error: string | null;
  cancel_requested: number;
}

function toRecord(row: InvocationRow): InvocationRecord {
  return {
    ...row,
    progress:
      row.progress === null ? null : (JSON.parse(row.progress) as InvocationRecord['progress']),
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    error: row.error === null ? null : (JSON.parse(row.error) as InvocationRecord['error']),
    cancel_requested: row.cancel_requested !== 0,
    charge_entry:
      row.charge_entry === null
        ? null
        : (JSON.parse(row.charge_entry) as InvocationRecord['charge_entry']),
  };
}

/** A record's fields as the row's columns take them. */
function toColumns(fields: Partial<InvocationRecord>): Record<string, unknown> {
  const columns: Record<string, unknown> = { ...fields };
  for (const name of JSON_FIELDS) {
    if (name in fields) {
      const value = fields[name];
      columns[name] = value === null || value === undefined ? null : JSON.stringify(value);
    }
  }
  if ('cancel_requested' in fields) columns.cancel_requested = fields.cancel_requested ? 1 : 0;
  return columns;
}

const CHANGEABLE = new Set([
  'status',
  'progress',
  'result',
  'error',
  'error_kind',
  'started_at',
  'finished_at',
  'expires_ms',
]);
const ACTIVE = ACTIVE_STATUSES.map((s) => `'${s}'`).join(', ');
/** The columns an update returns when it sets the result: that one is the caller's already. */
const ALL_BUT_RESULT = [
  'id',
  'caller_id',
  'tool',
  'status',
  'progress',
  'error',
  'error_kind',
  'created_at',
  'started_at',
  'finished_at',
  'instance',
  'cancel_requested',
  'expires_ms',
  'charged_day',
  'charged_credits',
  'idempotency_key',
  'charge_entry',
].join(', ');

/**
 * Long-running calls in the embedded store: `invocations`, and the instances' leases. Everything
 * they write (a record created, moved on, its progress; a lease; a cancel mark; the purge) is
 * written in the store's group commits, on the connection that counts credits
 * (SqliteDatabase.groupCommit): the commit a call's credits pay for carries its record too, and
 * no write of theirs syncs the disk on the event loop.
 */
export class SqliteInvocationStore extends InvocationStore {
  private readonly stmt: Record<string, Database.Statement>;
  /** Statements whose text depends on the call (an update's columns, a list's filters), once each. */
  private readonly shaped = new Map<string, Database.Statement>();

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('invocations', INVOCATION_MIGRATIONS);
    const db = sqlite.counters;
    this.stmt = {
      insert: db.prepare(
        `INSERT INTO invocations (id, caller_id, tool, status, progress, result, error, error_kind,
           created_at, started_at, finished_at, instance, cancel_requested, expires_ms,
           charged_day, charged_credits, idempotency_key, charge_entry)
         VALUES (@id, @caller_id, @tool, @status, @progress, @result, @error, @error_kind,
           @created_at, @started_at, @finished_at, @instance, @cancel_requested, @expires_ms,
           @charged_day, @charged_credits, @idempotency_key, @charge_entry)`,
      ),
      byId: db.prepare('SELECT * FROM invocations WHERE id = ?'),
      cancel: db.prepare(
        `UPDATE invocations SET cancel_requested = 1 WHERE id = ? AND status IN (${ACTIVE})`,
      ),
      cancels: db
        .prepare(
          `SELECT id FROM invocations WHERE cancel_requested = 1
             AND id IN (SELECT value FROM json_each(?))`,
        )
        .pluck(),
      renew: db.prepare(
        `INSERT INTO invocation_instances (id, alive_until) VALUES (?, ?)
         ON CONFLICT (id) DO UPDATE SET alive_until = excluded.alive_until`,
      ),
      alive: db.prepare('SELECT alive_until FROM invocation_instances WHERE id = ?').pluck(),
      orphans: db.prepare(
        `SELECT i.* FROM invocations i LEFT JOIN invocation_instances n ON n.id = i.instance
         WHERE i.status IN (${ACTIVE}) AND (n.alive_until IS NULL OR n.alive_until <= ?)
           AND i.created_at < ?
         LIMIT ?`,
      ),
      purge: db.prepare(
        `DELETE FROM invocations WHERE rowid IN
           (SELECT rowid FROM invocations WHERE expires_ms <= ? LIMIT ${PURGE_SLICE})`,
      ),
      forgetInstances: db.prepare(
        `DELETE FROM invocation_instances WHERE alive_until <= ? AND id NOT IN
           (SELECT instance FROM invocations WHERE status IN (${ACTIVE}))`,
      ),
    };
  }

  create(record: InvocationRecord): Promise<void> {
    const columns = toColumns(record);
    return this.sqlite.groupCommit(() => {
      this.stmt.insert.run(columns);
    });
  }

  get(id: string): Promise<InvocationRecord | undefined> {
    return this.sqlite.attempt(() => {
      const row = this.stmt.byId.get(id) as InvocationRow | undefined;
      return row && toRecord(row);
    });
  }

  list(
    callerId: string,
    page: { status?: InvocationStatus; after?: InvocationPosition; limit: number },
  ): Promise<InvocationRecord[]> {
    return this.page(callerId, page);
  }

  /** Every caller's calls, by `invocations_order`: a page seeks from its cursor. */
  listAll(page: {
    status?: InvocationStatus;
    after?: InvocationPosition;
    limit: number;
  }): Promise<InvocationRecord[]> {
    return this.page(undefined, page);
  }

  private page(
    callerId: string | undefined,
    page: { status?: InvocationStatus; after?: InvocationPosition; limit: number },
  ): Promise<InvocationRecord[]> {
    const where = callerId === undefined ? ['1'] : ['caller_id = @caller'];
    const params: Record<string, unknown> = { limit: page.limit };
    if (callerId !== undefined) params.caller = callerId;
    if (page.status) {
      where.push('status = @status');
      params.status = page.status;
    }
    if (page.after) {
      where.push('(created_at, id) < (@created_at, @id)');
      Object.assign(params, page.after);
    }
    const statement = this.statement(
      `SELECT * FROM invocations WHERE ${where.join(' AND ')}
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
    );
    return this.sqlite.attempt(() => (statement.all(params) as InvocationRow[]).map(toRecord));
  }

  update(
    id: string,
    changes: InvocationChanges,
    from: readonly InvocationStatus[],
  ): Promise<InvocationRecord | undefined> {
    const columns = toColumns(changes);
    const names = Object.keys(columns).filter((name) => CHANGEABLE.has(name));
    const params: Record<string, unknown> = { id };
    for (const name of names) params[name] = columns[name];
    from.forEach((status, i) => (params[`from${i}`] = status));
    // A result just written is not read back (it may be a megabyte of JSON).
    const setsResult = changes.result !== undefined;
    const statement = this.statement(
      `UPDATE invocations SET ${names.map((name) => `${name} = @${name}`).join(', ')}
       WHERE id = @id AND status IN (${from.map((_, i) => `@from${i}`).join(', ')})
       RETURNING ${setsResult ? ALL_BUT_RESULT : '*'}`,
    );
    return this.sqlite.groupCommit(() => {
      const row = statement.get(params) as InvocationRow | undefined;
      if (!row) return undefined;
      return setsResult
        ? { ...toRecord({ ...row, result: null }), result: changes.result }
        : toRecord(row);
    });
  }

  requestCancel(id: string): Promise<void> {
    return this.sqlite.groupCommit(() => {
      this.stmt.cancel.run(id);
    });
  }

  cancelsAmong(ids: readonly string[]): Promise<string[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.sqlite.attempt(() => this.stmt.cancels.all(JSON.stringify(ids)) as string[]);
  }

  /** One process holds the embedded store: a cancel asked here is seen by the caller directly. */
  onCancel(): void {}

  /** Another process (sharing the file) is heard of through the marks only. */
  readonly announcesCancels = false;

  renew(instance: string, untilMs: number): Promise<void> {
    return this.sqlite.groupCommit(() => {
      this.stmt.renew.run(instance, untilMs);
    });
  }

  alive(instance: string, nowMs: number): Promise<boolean> {
    return this.sqlite.attempt(() => {
      const until = this.stmt.alive.get(instance) as number | undefined;
      return until !== undefined && until > nowMs;
    });
  }

  orphans(nowMs: number, createdBefore: string, limit: number): Promise<InvocationRecord[]> {
    return this.sqlite.attempt(() =>
      (this.stmt.orphans.all(nowMs, createdBefore, limit) as InvocationRow[]).map(toRecord),
    );
  }

  /** Slice after slice of PURGE_SLICE calls, each in a group commit of its own. */
  async purge(nowMs: number): Promise<number> {
    await this.sqlite.groupCommit(() => this.stmt.forgetInstances.run(nowMs - 86_400_000));
    let purged = 0;
    for (;;) {
      const slice = await this.sqlite.groupCommit(() => this.stmt.purge.run(nowMs).changes);
      purged += slice;
      if (slice < PURGE_SLICE) return purged;
    }
  }

  /** The statement of `sql` on the connection, prepared at its first use. */
  private statement(sql: string): Database.Statement {
    let statement = this.shaped.get(sql);
    if (!statement) {
      statement = this.sqlite.counters.prepare(sql);
      this.shaped.set(sql, statement);
    }
    return statement;
  }
}
