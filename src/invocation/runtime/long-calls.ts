import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '../../limits/clock';
import { Settings, SETTINGS } from '../../settings/settings';
import {
  ACTIVE_STATUSES,
  InvocationChanges,
  InvocationRecord,
  InvocationStore,
} from '../../store/invocations/invocation.store';
import type { RegisteredTool } from '../../tools/tool.registry';
import type { Claim } from '../idempotency';
import { CallControl } from './call-control';
import { ToolActor, ToolExecution } from './execution';
import {
  INSTANCE_STOPPED_CHANGES,
  outcomeOf,
  progressWriter,
  stoppedBy,
  newRecord,
} from './invocation-records';
import type { Ticket } from './tool-slots';

/** A finished call is kept this long (its view, its result). */
export const INVOCATION_KEEP_MS = 24 * 3_600_000;
/** A result larger than this is not kept (the call fails). */
export const MAX_RESULT_BYTES = 1024 * 1024;
/** An instance looks for calls orphaned by a stopped instance this often. */
const SWEEP_MS = 5_000;

/** A call this instance runs in the background. */
interface Running {
  control: CallControl;
  done: Promise<InvocationRecord | undefined>;
}

/** What it takes to run a call in the background. */
export interface LongCallSpec {
  tool: RegisteredTool;
  input: object;
  actor: ToolActor;
  ticket: Ticket;
  /** Its place in the caller's budget of kept answers (the result counts against it). */
  budget: Claim;
  /** Called when it ends in a 5xx (a 504 among them): its tool's `failed` count. */
  onFailed?: () => void;
}

/** A new invocation id: unguessable, as it is also an MCP task's id (a bearer of sorts). */
export function newInvocationId(): string {
  return `inv_${randomBytes(16).toString('hex')}`;
}

/**
 * Long-running calls (docs/long-running-calls.md): a call run in the background on the instance
 * that accepted it, its state in the store (InvocationStore) so that any instance answers for it.
 * This instance renews its lease while it runs calls and reads their cancel marks; it also marks
 * `failed` the calls of an instance whose lease lapsed (it stopped, even by kill -9). On shutdown
 * its calls may finish for SHUTDOWN_DRAIN_MS, then are stopped and marked failed.
 */
@Injectable()
export class LongCalls
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  readonly instance = randomBytes(8).toString('hex');
  private readonly logger = new Logger('Invocations');
  private readonly running = new Map<string, Running>();
  private timer?: NodeJS.Timeout;
  private sweptAt = 0;
  private purgedAt = 0;
  private stopping = false;

  constructor(
    private readonly store: InvocationStore,
    private readonly execution: ToolExecution,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    this.store.onCancel((id) => this.running.get(id)?.control.stop('cancelled'));
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.settings.invocations.renewMs);
    this.timer.unref();
  }

  /** Whether this instance takes new background calls (not once it shuts down). */
  get accepting(): boolean {
    return !this.stopping;
  }

  /**
   * Starts a call in the background: resolves with its record once the record is stored (queued
   * while its ticket waits for a slot, else running). The call then runs on its own.
   */
  async begin(id: string, spec: LongCallSpec): Promise<InvocationRecord> {
    const now = this.clock.now().toISOString();
    const queued = spec.ticket.queued;
    const record = newRecord(
      this.instance,
      id,
      spec.tool.name,
      spec.actor,
      now,
      queued ? null : now,
      queued,
    );
    const control = new CallControl();
    try {
      await this.leaseFor();
      await this.store.create(record);
    } catch (error) {
      spec.ticket.release();
      throw error;
    }
    const outcome = this.drive(record, spec, control).then((changes) => {
      if ((changes.error?.status ?? 0) >= 500) spec.onFailed?.();
      return changes;
    });
    this.track(record, control, spec.budget, outcome);
    return record;
  }

  /**
   * Takes over a call already running in the request that started it (an MCP call that became a
   * task): its record is stored, and its outcome is the running promise's.
   */
  async adopt(
    id: string,
    tool: RegisteredTool,
    actor: ToolActor,
    control: CallControl,
    budget: Claim,
    running: Promise<unknown>,
    startedAt: Date,
  ): Promise<InvocationRecord> {
    const record = newRecord(
      this.instance,
      id,
      tool.name,
      actor,
      startedAt.toISOString(),
      startedAt.toISOString(),
      false,
    );
    await this.leaseFor();
    await this.store.create(record);
    this.track(record, control, budget, outcomeOf(tool, running));
    return record;
  }

  /** The instance's lease, renewed before its first call is stored (the ticks renew it after). */
  private async leaseFor(): Promise<void> {
    if (this.running.size === 0) {
      await this.store.renew(this.instance, Date.now() + this.settings.invocations.leaseMs);
    }
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
    if (await this.store.alive(record.instance, Date.now())) return record;
    return (await this.orphaned(record)) ?? (await this.store.get(id));
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

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Runs the call: its slot first (queued until then), then the tool within its deadline. */
  private async drive(
    record: InvocationRecord,
    spec: LongCallSpec,
    control: CallControl,
  ): Promise<InvocationChanges> {
    if (spec.ticket.queued) {
      try {
        await spec.ticket.started(control.signal);
      } catch {
        return stoppedBy(control);
      }
      await this.store
        .update(record.id, { status: 'running', started_at: this.clock.now().toISOString() }, [
          'queued',
        ])
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'Could not mark a call running'),
        );
    }
    control.deadline(spec.tool.runtime.timeoutMs);
    const progress = progressWriter(this.store, record.id);
    const changes = await outcomeOf(
      spec.tool,
      this.execution.run(spec.tool, spec.input, spec.actor, control, spec.ticket, progress.sink),
    );
    // The last report stands in the final record, whatever was written before.
    return { ...changes, ...progress.last() };
  }

  /** Follows a call to its end: its record written, its result counted against the budget. */
  private track(
    record: InvocationRecord,
    control: CallControl,
    budget: Claim,
    outcome: Promise<InvocationChanges>,
  ): void {
    const done = outcome.then((changes) => this.finish(record.id, changes, budget));
    this.running.set(record.id, { control, done });
    void done.finally(() => this.running.delete(record.id));
  }

  private async finish(
    id: string,
    changes: InvocationChanges,
    budget: Claim,
  ): Promise<InvocationRecord | undefined> {
    const finishedAt = this.clock.now();
    let final = changes;
    let bytes = 0;
    if (changes.status === 'succeeded') {
      bytes = Buffer.byteLength(JSON.stringify(changes.result ?? null));
      if (bytes > MAX_RESULT_BYTES) {
        bytes = 0;
        final = {
          status: 'failed',
          result: null,
          error: {
            status: 500,
            detail: `The answer was larger than ${MAX_RESULT_BYTES} bytes and was not kept.`,
          },
          error_kind: 'runtime',
        };
      }
    }
    await budget.keepSize(bytes, finishedAt.getTime() + INVOCATION_KEEP_MS);
    try {
      return await this.store.update(
        id,
        {
          ...final,
          finished_at: finishedAt.toISOString(),
          expires_ms: finishedAt.getTime() + INVOCATION_KEEP_MS,
        },
        ACTIVE_STATUSES,
      );
    } catch (error) {
      this.logger.error({ err: error }, `Could not record the end of ${id}`);
      return undefined;
    }
  }

  /** Marks a call whose instance stopped `failed`; the record after, if this instance did it. */
  private orphaned(record: InvocationRecord): Promise<InvocationRecord | undefined> {
    const at = this.clock.now();
    return this.store.update(
      record.id,
      {
        status: 'failed',
        ...INSTANCE_STOPPED_CHANGES,
        finished_at: at.toISOString(),
        expires_ms: at.getTime() + INVOCATION_KEEP_MS,
      },
      ACTIVE_STATUSES,
    );
  }

  /**
   * While this instance runs calls: renews its lease and stops what was cancelled elsewhere. In
   * any case, now and then: sweeps the calls of stopped instances, purges expired ones. An idle
   * instance writes nothing (a write a second would cost every request on SQLite its kept key
   * records, which last while nothing is written).
   */
  private async tick(): Promise<void> {
    const now = Date.now();
    try {
      if (this.running.size) {
        await this.store.renew(this.instance, now + this.settings.invocations.leaseMs);
        for (const id of await this.store.cancelsAmong([...this.running.keys()])) {
          this.running.get(id)?.control.stop('cancelled');
        }
      }
      if (now - this.sweptAt >= SWEEP_MS) {
        this.sweptAt = now;
        for (const record of await this.store.orphans(now, 100)) await this.orphaned(record);
      }
      if (now - this.purgedAt >= 3_600_000) {
        this.purgedAt = now;
        await this.store.purge(this.clock.now().getTime());
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'Long-running calls: the store could not be reached');
    }
  }
}
