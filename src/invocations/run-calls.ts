import { Injectable, OnModuleInit } from '@nestjs/common';
import { RunsService } from '../runs';
import type { CallControl } from './call-control';
import { Ending, INSTANCE_STOPPED_CHANGES, stoppedBy } from './invocation-records';
import { InvocationRecord, InvocationStore } from './invocation.store';
import type { Admission } from './tool-slots';

/** The queued calls of a run read at its end, at most (a parent's calls in flight are fewer). */
const QUEUED_READ = 1000;

/**
 * A run's long-running calls: those still queued when the run ends (DELETE, its parent revoked)
 * are cancelled, and a call of an ended run (expired too) that leaves its queue never starts;
 * either way it is refunded, to its parent and its run (docs/runs-and-ledger.md).
 */
@Injectable()
export class RunCalls implements OnModuleInit {
  constructor(
    private readonly runs: RunsService,
    private readonly store: InvocationStore,
  ) {}

  onModuleInit(): void {
    this.runs.onEnded((run) => this.cancelQueued(run.parent.id, run.id));
  }

  /**
   * A queued call's wait for its slot: undefined once it may start, else how it ends. Stopped in
   * its queue, it is refunded when its instance stopped or its run ended; its run ended while it
   * waited, it never starts (cancelled, refunded).
   */
  async leaveQueue(
    record: InvocationRecord,
    admission: Admission,
    control: CallControl,
  ): Promise<Ending | undefined> {
    try {
      await admission.started(control.signal);
    } catch {
      const changes = stoppedBy(control);
      const stopped = changes === INSTANCE_STOPPED_CHANGES;
      return { changes, refund: stopped || (await this.ended(record)), settles: true };
    }
    if (!(await this.ended(record))) return undefined;
    admission.release();
    return { changes: { status: 'cancelled' }, refund: true, settles: true };
  }

  /** Whether the call was made in a run that has ended since. */
  async ended(record: InvocationRecord): Promise<boolean> {
    const runId = record.charge_entry?.run_id;
    return runId ? !(await this.runs.isActive(runId)) : false;
  }

  private async cancelQueued(parentId: string, runId: string): Promise<void> {
    const queued = await this.store.list(parentId, { status: 'queued', limit: QUEUED_READ });
    for (const call of queued) {
      if (call.charge_entry?.run_id === runId) await this.store.requestCancel(call.id);
    }
  }
}
