import { spans } from '../tracing';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '../kernel/common/clock';
import { Periodic } from '../kernel/common/periodic';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { ACTIVE_STATUSES, InvocationRecord, InvocationStore } from './invocation.store';
import type { RegisteredTool } from '../tools/index';
import { IdempotencyService } from '../idempotency';
import { CallControl } from './call-control';
import { CallSettlement } from './call-settlement';
import { RunCalls } from './run-calls';
import { InvocationEvents } from './invocation-events';
import { ToolExecution } from './execution';
import {
  CallOrigin,
  Ending,
  endOf,
  INSTANCE_STOPPED_CHANGES,
  LongCallSpec,
  outcomeOf,
  progressWriter,
  newRecord,
} from './invocation-records';

export { INVOCATION_KEEP_MS, MAX_RESULT_BYTES, newInvocationId } from './invocation-records';

/** An instance looks for calls orphaned by a stopped instance this often (at most). */
const SWEEP_MS = 5_000;

/** A call this instance runs in the background. */
interface Running {
  control: CallControl;
  done: Promise<InvocationRecord | undefined>;
}

/**
 * Long-running calls (docs/long-running-calls.md): a call run in the background on the instance
 * that accepted it, its state in the store (InvocationStore) so that any instance answers for it.
 * Accepting one writes its record and nothing else: this instance renews its lease on its timer
 * while it runs calls (within a lease of the first, which a call that young never needs), and
 * reads their cancel marks; it also marks `failed` the calls of an instance whose lease lapsed (it
 * stopped, even by kill -9), refunding those that never started. On shutdown its calls may finish
 * for SHUTDOWN_DRAIN_MS, then are stopped and marked failed, those still queued refunded.
 */
@Injectable()
export class LongRunningCalls
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  readonly instance = randomBytes(8).toString('hex');
  private readonly logger = new Logger('Invocations');
  private readonly running = new Map<string, Running>();
  private sweptAt = 0;
  private purgedAt = 0;
  private stopping = false;
  private readonly upkeep: Periodic;

  constructor(
    private readonly store: InvocationStore,
    private readonly execution: ToolExecution,
    private readonly settlement: CallSettlement,
    private readonly events: InvocationEvents,
    private readonly idempotency: IdempotencyService,
    private readonly runCalls: RunCalls,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {
    this.upkeep = new Periodic({
      everyMs: settings.invocations.renewMs,
      work: () => this.tick(),
      onError: (error) =>
        this.logger.warn({ err: error }, 'Long-running calls: the store could not be reached'),
    });
  }

  onApplicationBootstrap(): void {
    this.store.onCancel((id) => this.running.get(id)?.control.stop('cancelled'));
    this.upkeep.start();
  }

  /** Whether this instance takes new background calls (not once it shuts down). */
  get accepting(): boolean {
    return !this.stopping;
  }

  /**
   * Starts a call in the background: resolves with its record once the record is stored (queued
   * while its admission waits for a slot, else running). The call then runs on its own.
   */
  async begin(id: string, spec: LongCallSpec): Promise<InvocationRecord> {
    const now = this.clock.now().toISOString();
    const record = newRecord(this.instance, id, spec.tool.name, spec, now, spec.admission.queued);
    const control = new CallControl();
    try {
      await this.store.create(record);
    } catch (error) {
      spec.admission.release();
      throw error;
    }
    const drive = () => this.drive(record, spec, control);
    this.track(record, control, spans.background(id, spec, drive));
    return record;
  }

  /**
   * Takes over a call already running in the request that started it (an MCP call that became a
   * task): its record is stored, and its outcome is the running promise's.
   */
  async adopt(
    id: string,
    tool: RegisteredTool,
    origin: CallOrigin,
    control: CallControl,
    running: Promise<unknown>,
    startedAt: Date,
  ): Promise<InvocationRecord> {
    const record = newRecord(this.instance, id, tool.name, origin, startedAt.toISOString(), false);
    await this.store.create(record);
    const ending = outcomeOf(tool, running).then((changes): Ending => ({
      changes,
      refund: false,
      settles: false,
    }));
    this.track(record, control, ending);
    return record;
  }

  /** Resolves with the call's record once it is over, or undefined after `ms` (0: at once). */
  async awaitFinish(id: string, ms: number): Promise<InvocationRecord | undefined> {
    const running = this.running.get(id);
    if (!running || ms <= 0) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    try {
      return await Promise.race([running.done, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The call's record as it stands; a call whose instance stopped is marked failed first. */
  async find(id: string): Promise<InvocationRecord | undefined> {
    const record = await this.store.get(id);
    // A view is kept 24 hours after its call ended (the store forgets it by itself, later).
    if (record?.expires_ms != null && record.expires_ms <= this.clock.now().getTime()) return;
    if (!record || !ACTIVE_STATUSES.includes(record.status)) return record;
    if (record.instance === this.instance) return record;
    if (record.created_at >= this.youngSince()) return record;
    if (await this.store.alive(record.instance, Date.now())) return record;
    return (await this.settlement.orphaned(record)) ?? (await this.store.get(id));
  }

  /** A caller's calls, newest first (those kept past their 24 hours left out). */
  async list(
    callerId: string,
    page: Parameters<InvocationStore['list']>[1],
  ): Promise<InvocationRecord[]> {
    const now = this.clock.now().getTime();
    const records = await this.store.list(callerId, page);
    return records.filter((record) => record.expires_ms == null || record.expires_ms > now);
  }

  /** Asks the call to stop: at once here, through the store's cancel mark elsewhere. */
  async cancel(id: string): Promise<void> {
    const here = this.running.get(id);
    if (here) here.control.stop('cancelled');
    else await this.store.requestCancel(id);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (!this.running.size) return;
    const drain = this.settings.invocations.shutdownDrainMs;
    this.logger.log(`Letting ${this.running.size} running call(s) finish for up to ${drain} ms`);
    const all = () => Promise.all([...this.running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all(), new Promise((resolve) => (timer = setTimeout(resolve, drain)))]);
    clearTimeout(timer);
    for (const { control } of this.running.values()) control.stop('shutdown');
    await all();
  }

  onApplicationShutdown(): Promise<void> {
    return this.upkeep.stop();
  }

  /**
   * Runs the call: its slot first (queued until then), then the tool within its deadline. A call
   * whose record another instance moved on while it waited (taken for an orphan) does not run.
   */
  private async drive(
    record: InvocationRecord,
    spec: LongCallSpec,
    control: CallControl,
  ): Promise<Ending> {
    if (record.status === 'queued') {
      const ended = await this.runCalls.leaveQueue(record, spec.admission, control);
      if (ended) return ended;
      const started = { status: 'running' as const, started_at: this.clock.now().toISOString() };
      const marked = await this.store
        .update(record.id, started, ['queued'])
        .catch((error: unknown) => {
          this.logger.warn({ err: error }, 'Could not mark a call running');
          return record;
        });
      if (!marked) {
        spec.admission.release();
        return { changes: INSTANCE_STOPPED_CHANGES, refund: false, settles: false };
      }
    }
    control.deadline(spec.tool.runtime.timeoutMs);
    const progress = progressWriter(this.store, record.id);
    const { tool, input, actor, admission } = spec;
    const execution = this.execution.execute(tool, input, actor, control, admission, progress.sink);
    const changes = await outcomeOf(tool, execution);
    // The last report stands in the final record, whatever was written before.
    return { changes: { ...changes, ...progress.last() }, refund: false, settles: true };
  }

  /** Follows a call to its end: its record written, its caller's usage and budget settled. */
  private track(record: InvocationRecord, control: CallControl, ending: Promise<Ending>): void {
    const done = ending.then((end) => this.finish(record, end));
    this.running.set(record.id, { control, done });
    void done.finally(() => this.running.delete(record.id));
  }

  /**
   * Writes the call's end (a compare-and-set: a call another instance took for an orphan ends as
   * that instance wrote it), then settles what it leaves: a refund, or, ended in a 5xx, its tool's
   * `failed` count. Its result enters its caller's budget of kept answers in the same commit as its
   * end (a call another instance ended first costs that budget an entry of no result).
   */
  private async finish(
    record: InvocationRecord,
    { changes, refund, settles }: Ending,
  ): Promise<InvocationRecord | undefined> {
    const { id, caller_id: callerId } = record;
    const end = endOf(changes, this.clock.now());
    const until = end.changes.expires_ms ?? 0;
    const kept = refund
      ? undefined
      : this.idempotency.keepResult(callerId, id, end.resultBytes, until);
    let after: InvocationRecord | undefined;
    try {
      after = await this.store.update(id, end.changes, ACTIVE_STATUSES);
    } catch (error) {
      this.logger.error({ err: error }, `Could not record the end of ${id}`);
    }
    await kept;
    if (!after) return undefined;
    if (refund) await this.settlement.refund(after);
    else if (settles && (after.error?.status ?? 0) >= 500) await this.settlement.failed(after);
    await this.events.finished(after);
    return after;
  }

  /** Calls created since this instant are younger than a lease: never taken for orphans. */
  private youngSince(): string {
    return new Date(this.clock.now().getTime() - this.settings.invocations.leaseMs).toISOString();
  }

  /**
   * While this instance runs calls: renews its lease and stops what was cancelled elsewhere (read
   * from the marks at each renewal, or, where the store announces cancels, at each sweep, should
   * an announcement be lost). In any case, now and then: sweeps the calls of stopped instances,
   * purges expired ones. An idle instance writes nothing but the hourly purge.
   */
  /** The lease renewed, cancels read, orphans swept and old records purged, when each is due. */
  private async tick(): Promise<void> {
    const now = Date.now();
    const sweep = now - this.sweptAt >= Math.min(SWEEP_MS, this.settings.invocations.leaseMs / 3);
    if (this.running.size) {
      await this.store.renew(this.instance, now + this.settings.invocations.leaseMs);
      if (sweep || !this.store.announcesCancels) {
        for (const id of await this.store.cancelsAmong([...this.running.keys()])) {
          this.running.get(id)?.control.stop('cancelled');
        }
      }
    }
    if (sweep) {
      this.sweptAt = now;
      const orphans = await this.store.orphans(now, this.youngSince(), 100);
      for (const record of orphans) await this.settlement.orphaned(record);
    }
    if (now - this.purgedAt >= 3_600_000) {
      this.purgedAt = now;
      await this.store.purge(this.clock.now().getTime());
    }
  }
}
