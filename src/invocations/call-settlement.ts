import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../kernel/common/clock';
import { QuotaService } from '../limits';
import { InvocationRecord, InvocationStatus, InvocationStore } from './invocation.store';
import { IdempotencyService } from '../idempotency';
import { endOf, idempotencyOwner, INSTANCE_STOPPED_CHANGES } from './invocation-records';

/**
 * What a long-running call that ended badly leaves on its caller's usage (docs/long-running-calls.md,
 * "Refunds"): a call that never started (its instance stopped first) is refunded; a charged call
 * that ended in a 5xx counts as failed. Each is done once, by the instance whose compare-and-set
 * moved the call to its end (InvocationStore.update), with the record that set returned. Never
 * throws: the call's end stands whatever happens to its usage (logged).
 */
@Injectable()
export class CallSettlement {
  private readonly logger = new Logger('Invocations');

  constructor(
    private readonly store: InvocationStore,
    private readonly quota: QuotaService,
    private readonly idempotency: IdempotencyService,
    private readonly clock: Clock,
  ) {}

  /**
   * A call whose instance stopped: marked `failed` by a compare-and-set from the status it was
   * seen in (so that exactly one instance does it, whether it found the call by its sweep or by a
   * read), then refunded if it never started, else counted as failed (it stays charged). The
   * record after, if this instance did it.
   */
  async orphaned(record: InvocationRecord): Promise<InvocationRecord | undefined> {
    const { changes } = endOf(INSTANCE_STOPPED_CHANGES, this.clock.now());
    // A call seen queued may have started since; one seen running never goes back.
    const seen: InvocationStatus[] =
      record.status === 'queued' ? ['queued', 'running'] : ['running'];
    for (const from of seen) {
      const after = await this.store.update(record.id, changes, [from]);
      if (!after) continue;
      if (from === 'queued') await this.refund(after);
      else await this.failed(after);
      return after;
    }
    return undefined;
  }

  /**
   * A call accepted that never started: its credits back on the day and month they were charged,
   * counted as failed for its tool that day, and no answer kept for its Idempotency-Key (a retry
   * with it runs anew).
   */
  async refund(record: InvocationRecord): Promise<void> {
    try {
      if (record.charged_day !== null) {
        await this.quota.refund(record.caller_id, {
          day: record.charged_day,
          tool: record.tool,
          credits: record.charged_credits,
          entry: record.charge_entry,
        });
      }
      if (record.idempotency_key !== null) {
        const owner = idempotencyOwner(record.caller_id, record.charge_entry?.run_id);
        await this.idempotency.forget(owner, record.tool, record.idempotency_key);
      }
    } catch (error) {
      this.logger.error({ err: error }, `Could not refund ${record.id}`);
    }
  }

  /** A charged call that ended in a 5xx (a 504, its instance stopping): its tool's `failed` count. */
  async failed(record: InvocationRecord): Promise<void> {
    if (record.charged_day === null) return;
    try {
      await this.quota.countFailure(record.caller_id, {
        day: record.charged_day,
        tool: record.tool,
      });
    } catch (error) {
      this.logger.warn({ err: error }, `Could not count ${record.id} as failed`);
    }
  }
}
