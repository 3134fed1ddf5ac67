import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import {
  IdempotencyBegin,
  IdempotencyCaps,
  IdempotencyClaim,
  IdempotencyStore,
} from './idempotency.store';

/** Expired idempotency entries forgotten in one transaction of the purge (see purgeIdempotent). */
const PURGE_SLICE = 1000;

interface IdempotencyRow {
  fingerprint: string;
  token: string;
  status: number | null;
  body: string | null;
}

const sumOf = (rows: { bytes: number }[]): number => rows.reduce((sum, row) => sum + row.bytes, 0);

/**
 * Idempotency entries in the embedded store: the `idempotency` table, each entry with its size,
 * and `idempotency_totals`, each key's entries and bytes (read in O(1) by every idempotent call).
 * What long-running calls write (their results' sizes, an answer forgotten with a refund) goes in
 * the store's group commits (SqliteDatabase.groupCommit), with the calls' records.
 */
export class SqliteIdempotencyStore extends IdempotencyStore {
  private readonly stmt: Record<string, Database.Statement>;
  /** The statements of the group commits, on the connection they commit on. */
  private readonly grouped: Record<string, Database.Statement>;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    const { db, counters } = sqlite;
    const addToTotals = `INSERT INTO idempotency_totals (key_id, entries, bytes) VALUES (?, ?, ?)
         ON CONFLICT(key_id) DO UPDATE SET entries = entries + excluded.entries,
           bytes = bytes + excluded.bytes`;
    this.grouped = {
      keepSize: counters.prepare(
        `INSERT INTO idempotency (key_id, scope, fingerprint, token, status, body, expires_ms, bytes)
         VALUES (?, ?, '', '', 200, 'null', ?, ?) ON CONFLICT DO NOTHING`,
      ),
      forgetAccepted: counters.prepare(
        `DELETE FROM idempotency WHERE key_id = ? AND scope = ? AND (status IS NULL OR status = 202)
         RETURNING bytes`,
      ),
      add: counters.prepare(addToTotals),
    };
    this.stmt = {
      idemPrune: db.prepare(
        'DELETE FROM idempotency WHERE key_id = ? AND expires_ms <= ? RETURNING bytes',
      ),
      idemGet: db.prepare(
        'SELECT fingerprint, token, status, body FROM idempotency WHERE key_id = ? AND scope = ?',
      ),
      idemTotals: db.prepare('SELECT entries, bytes FROM idempotency_totals WHERE key_id = ?'),
      idemOldest: db.prepare('SELECT MIN(expires_ms) FROM idempotency WHERE key_id = ?').pluck(),
      idemStart: db.prepare(
        `INSERT INTO idempotency (key_id, scope, fingerprint, token, expires_ms, bytes)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      idemComplete: db.prepare(
        `UPDATE idempotency SET status = ?, body = ?, expires_ms = ?, bytes = bytes + ?
         WHERE key_id = ? AND scope = ? AND token = ? AND status IS NULL`,
      ),
      idemRelease: db.prepare(
        `DELETE FROM idempotency WHERE key_id = ? AND scope = ? AND token = ? AND status IS NULL
         RETURNING bytes`,
      ),
      idemPurgeSlice: db.prepare(
        `DELETE FROM idempotency WHERE (key_id, scope) IN
           (SELECT key_id, scope FROM idempotency WHERE expires_ms <= ? LIMIT ${PURGE_SLICE})
         RETURNING key_id, bytes`,
      ),
      idemAdd: db.prepare(addToTotals),
      idemForgetEmpty: db.prepare('DELETE FROM idempotency_totals WHERE entries <= 0'),
    };
  }

  beginIdempotent(
    claim: IdempotencyClaim,
    nowMs: number,
    runningUntilMs: number,
    caps: IdempotencyCaps,
  ): Promise<IdempotencyBegin> {
    const { keyId, scope, fingerprint, token, markerBytes } = claim;
    return this.sqlite.attempt(() =>
      this.sqlite.db
        .transaction((): IdempotencyBegin => {
          const expired = this.stmt.idemPrune.all(keyId, nowMs) as { bytes: number }[];
          if (expired.length) this.addToTotals(keyId, -expired.length, -sumOf(expired));
          const row = this.stmt.idemGet.get(keyId, scope) as IdempotencyRow | undefined;
          if (row) {
            if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
            if (row.status === null) return { state: 'in_progress' };
            return { state: 'done', status: row.status, body: row.body ?? 'null' };
          }
          if (this.isFull(keyId, caps)) {
            return { state: 'full', retryAtMs: this.stmt.idemOldest.get(keyId) as number };
          }
          this.stmt.idemStart.run(keyId, scope, fingerprint, token, runningUntilMs, markerBytes);
          this.addToTotals(keyId, 1, markerBytes);
          return { state: 'started' };
        })
        .immediate(),
    );
  }

  private addToTotals(keyId: string, entries: number, bytes: number): void {
    this.stmt.idemAdd.run(keyId, entries, bytes);
  }

  private isFull(keyId: string, caps: IdempotencyCaps): boolean {
    const held = this.stmt.idemTotals.get(keyId) as { entries: number; bytes: number } | undefined;
    return (
      held !== undefined &&
      held.entries > 0 &&
      (held.entries >= caps.entries || held.bytes >= caps.bytes)
    );
  }

  /** A read; the key's expired entries are forgotten (a write) only when it looks full. */
  fullUntil(keyId: string, nowMs: number, caps: IdempotencyCaps): Promise<number | undefined> {
    return this.sqlite.attempt(() => {
      if (!this.isFull(keyId, caps)) return undefined;
      return this.sqlite.db
        .transaction(() => {
          const expired = this.stmt.idemPrune.all(keyId, nowMs) as { bytes: number }[];
          if (expired.length) this.addToTotals(keyId, -expired.length, -sumOf(expired));
          return this.isFull(keyId, caps) ? (this.stmt.idemOldest.get(keyId) as number) : undefined;
        })
        .immediate();
    });
  }

  keepSize(keyId: string, scope: string, bytes: number, keepUntilMs: number): Promise<void> {
    return this.sqlite.groupCommit(() => {
      if (this.grouped.keepSize.run(keyId, scope, keepUntilMs, bytes).changes) {
        this.grouped.add.run(keyId, 1, bytes);
      }
    });
  }

  forgetAccepted(keyId: string, scope: string): Promise<void> {
    return this.sqlite.groupCommit(() => {
      const gone = this.grouped.forgetAccepted.all(keyId, scope) as { bytes: number }[];
      if (gone.length) this.grouped.add.run(keyId, -gone.length, -sumOf(gone));
    });
  }

  completeIdempotent(
    claim: IdempotencyClaim,
    status: number,
    body: string,
    keepUntilMs: number,
    answerBytes: number,
  ): Promise<void> {
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        const { changes } = this.stmt.idemComplete.run(
          status,
          body,
          keepUntilMs,
          answerBytes,
          claim.keyId,
          claim.scope,
          claim.token,
        );
        if (changes) this.addToTotals(claim.keyId, 0, answerBytes);
      })(),
    );
  }

  releaseIdempotent(claim: IdempotencyClaim): Promise<void> {
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        const gone = this.stmt.idemRelease.all(claim.keyId, claim.scope, claim.token) as {
          bytes: number;
        }[];
        if (gone.length) this.addToTotals(claim.keyId, -gone.length, -sumOf(gone));
      })(),
    );
  }

  /** Slice after slice of PURGE_SLICE entries, each its own transaction, the event loop free between. */
  async purgeIdempotent(nowMs: number): Promise<number> {
    let purged = 0;
    for (;;) {
      const slice = await this.sqlite.attempt(() =>
        this.sqlite.db.transaction(() => {
          const gone = this.stmt.idemPurgeSlice.all(nowMs) as { key_id: string; bytes: number }[];
          const byKey = new Map<string, { entries: number; bytes: number }>();
          for (const { key_id, bytes } of gone) {
            const totals = byKey.get(key_id) ?? { entries: 0, bytes: 0 };
            totals.entries += 1;
            totals.bytes += bytes;
            byKey.set(key_id, totals);
          }
          for (const [keyId, totals] of byKey)
            this.addToTotals(keyId, -totals.entries, -totals.bytes);
          if (gone.length) this.stmt.idemForgetEmpty.run();
          return gone.length;
        })(),
      );
      purged += slice;
      if (slice < PURGE_SLICE) return purged;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
