import type { Context } from '@opentelemetry/api';
import type Database from 'better-sqlite3';
import { outsideSpans, spans } from '../../common/tracing-gate';

/** One write waiting for the next group commit. */
interface PendingWrite {
  work: () => unknown;
  /** The context it was asked for in, for its span (spans.write); undefined when untraced. */
  asked: Context | undefined;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** How one write of a group commit went: its value, or its error (it alone was undone). */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Writes of the concerns that write on every call (quota counts, long-running calls' records),
 * committed together on one connection: those asked for while the event loop serves one round of
 * I/O run in one transaction when that round is done (`setImmediate`), and are answered once it
 * has committed. A commit takes SQLite's locks and writes the WAL, which costs more than most of
 * the statements it commits; shared, it is paid once a round instead of once a write.
 *
 * Each write runs in a savepoint of its own: one that throws is undone and answered with its
 * error, the others commit. A commit that fails (the disk, a lock held too long) answers every
 * write of the round with its failure (`failure`), nothing of it written.
 */
export class GroupCommit {
  private pending: PendingWrite[] = [];
  private readonly commitAll: Database.Transaction<(batch: PendingWrite[]) => Outcome[]>;
  private readonly savepoint: Database.Transaction<(work: () => unknown) => unknown>;

  constructor(
    connection: Database.Database,
    private readonly failure: (error: unknown) => Error,
    private readonly committed: () => void,
  ) {
    this.savepoint = connection.transaction((work: () => unknown) => work());
    this.commitAll = connection.transaction((batch: PendingWrite[]) =>
      batch.map((write): Outcome => {
        try {
          return { ok: true, value: spans.write(write.asked, () => this.savepoint(write.work)) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  }

  /** Runs `work` (statements of the connection) in the next group commit; its value once committed. */
  write<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const asked = spans.capture();
      const write = { work, asked, resolve: resolve as (value: unknown) => void, reject };
      // The round's commit is no call's: each write's span is its own caller's (spans.write).
      if (this.pending.push(write) === 1) setImmediate(() => outsideSpans(() => this.commit()));
    });
  }

  /** Commits what is pending now (the next round's turn, or the store closing). */
  commit(): void {
    const batch = this.pending;
    if (!batch.length) return;
    this.pending = [];
    let outcomes: Outcome[];
    try {
      // BEGIN IMMEDIATE: the write lock first, never upgraded from a read lock.
      outcomes = this.commitAll.immediate(batch);
    } catch (error) {
      const failed = this.failure(error);
      for (const write of batch) write.reject(failed);
      return;
    }
    this.committed();
    batch.forEach((write, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(this.failure(outcome.error));
    });
  }
}
