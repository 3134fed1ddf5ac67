import { HttpException, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { answerOf } from '../kernel/errors/answer';
import type { NewLedgerEntry } from '../ledger';
import type { InvocationChanges, InvocationRecord, InvocationStore } from './invocation.store';
import type { RegisteredTool } from '../tools/index';
import type { ToolActor } from './execution';
import type { Admission } from './tool-slots';
import { CallControl, CallStopped } from './call-control';
import { deadlinePassed, type ProgressSink } from './execution';

/** A finished call is kept this long (its view, its result). */
export const INVOCATION_KEEP_MS = 24 * 3_600_000;
/** A result larger than this is not kept (the call fails). */
export const MAX_RESULT_BYTES = 1024 * 1024;

/**
 * A new invocation id: `inv_` and 32 hex digits, the time in ms (12), then 80 random bits (20)
 * from a random UUID (its version and variant digits left out; Node draws UUIDs from a pool it
 * refills in bulk). Unguessable, as it is also an MCP task's id (a bearer of sorts); in time order,
 * so that a store's indexes of ids take new calls at their end, not on a random page each.
 */
export function newInvocationId(): string {
  const random = randomUUID().replace(/-/g, '');
  const time = Date.now().toString(16).padStart(12, '0');
  return `inv_${time}${random.slice(0, 12)}${random.slice(13, 16)}${random.slice(17, 22)}`;
}

/**
 * Whose Idempotency-Keys a call's are: its caller's, or, for a run's call, the run's own (a run's
 * agent and its parent never replay each other's answers).
 */
export function idempotencyOwner(callerId: string, runId: string | null | undefined): string {
  return runId ? `${callerId}.${runId}` : callerId;
}

/**
 * Whether a call is the caller's own: its caller's, and for a run's token, made in that run (a run
 * sees and cancels its own calls, never its parent's others).
 */
export function ownsInvocation(
  caller: { id: string; run?: { id: string } },
  record: Pick<InvocationRecord, 'caller_id' | 'charge_entry'>,
): boolean {
  if (record.caller_id !== caller.id) return false;
  return !caller.run || record.charge_entry?.run_id === caller.run.id;
}

/** What an instance that stopped leaves its calls with. */
export const INSTANCE_STOPPED = 'The instance running this call stopped.';

/** A call left behind by its instance: failed, the service's doing, not the tool's. */
export const INSTANCE_STOPPED_CHANGES: InvocationChanges = {
  status: 'failed',
  error: { status: 503, detail: INSTANCE_STOPPED },
  error_kind: 'runtime',
};

/** What a call was charged: the UTC day (and so the month), the credits, its ledger entry. */
export interface ChargedCredits {
  day: string;
  credits: number;
  entry?: NewLedgerEntry;
}

/** Who started a call and how: its caller, what it was charged, its Idempotency-Key. */
export interface CallOrigin {
  actor: ToolActor;
  charged?: ChargedCredits;
  idempotencyKey?: string;
}

/**
 * What it takes to run a call in the background: its tool and input, who started it and how
 * (what it was charged, its Idempotency-Key), and its place at the tool.
 */
export interface LongCallSpec extends CallOrigin {
  tool: RegisteredTool;
  input: object;
  admission: Admission;
}

/**
 * How a call ended here: its record's changes; `refund`, for a call stopped by the shutdown before
 * it started; `settles`, whether its `failed` count is this instance's to make (a call adopted
 * from its request has it counted by that request).
 */
export interface Ending {
  changes: InvocationChanges;
  refund: boolean;
  settles: boolean;
}

/**
 * A new call's record, created at `createdAt` on this instance: queued while it waits for a slot,
 * else running since then.
 */
export function newRecord(
  instance: string,
  id: string,
  tool: string,
  origin: CallOrigin,
  createdAt: string,
  queued: boolean,
): InvocationRecord {
  const { actor, charged, idempotencyKey } = origin;
  return {
    id,
    caller_id: actor.caller.id,
    tool,
    status: queued ? 'queued' : 'running',
    progress: null,
    result: null,
    error: null,
    error_kind: null,
    created_at: createdAt,
    started_at: queued ? null : createdAt,
    finished_at: null,
    instance,
    cancel_requested: false,
    expires_ms: null,
    charged_day: charged?.day ?? null,
    charged_credits: charged?.credits ?? 0,
    idempotency_key: idempotencyKey ?? null,
    charge_entry: charged?.entry ?? null,
  };
}

/** A call's progress is written at most this often (the last report always is). */
const PROGRESS_WRITE_MS = 250;

const logger = new Logger('Invocations');

/**
 * How a long-running call ended, as its record's changes: its answer (as JSON), or its error as
 * the status and `{detail}` its synchronous answer would have had; a deadline `timed_out`, a cancel
 * `cancelled`, a shutdown the instance's stop.
 */
export async function outcomeOf(
  tool: RegisteredTool,
  running: Promise<unknown>,
): Promise<InvocationChanges> {
  try {
    const result = JSON.parse(JSON.stringify((await running) ?? null)) as unknown;
    return { status: 'succeeded', result };
  } catch (error) {
    if (error instanceof CallStopped) {
      if (error.reason === 'deadline') {
        return { status: 'timed_out', ...failure(deadlinePassed(tool)) };
      }
      if (error.reason === 'shutdown') return INSTANCE_STOPPED_CHANGES;
      return { status: 'cancelled' };
    }
    // The synchronous answer a 504 over MCP was made from: a deadline, too.
    if (error instanceof HttpException && error.getStatus() === 504) {
      return { status: 'timed_out', ...failure(error) };
    }
    return { status: 'failed', ...failure(error) };
  }
}

/**
 * A call's end as its record takes it at `at`: the outcome, when it ended and when it is
 * forgotten; a result over MAX_RESULT_BYTES is not kept (the call fails). `resultBytes`: the size
 * of the result kept (0 without one).
 */
export function endOf(
  outcome: InvocationChanges,
  at: Date,
): { changes: InvocationChanges; resultBytes: number } {
  const ended = { finished_at: at.toISOString(), expires_ms: at.getTime() + INVOCATION_KEEP_MS };
  if (outcome.status !== 'succeeded') return { changes: { ...outcome, ...ended }, resultBytes: 0 };
  const resultBytes = Buffer.byteLength(JSON.stringify(outcome.result ?? null));
  if (resultBytes <= MAX_RESULT_BYTES) return { changes: { ...outcome, ...ended }, resultBytes };
  const tooLarge: InvocationChanges = {
    status: 'failed',
    result: null,
    error: {
      status: 500,
      detail: `The answer was larger than ${MAX_RESULT_BYTES} bytes and was not kept.`,
    },
    error_kind: 'runtime',
  };
  return { changes: { ...outcome, ...tooLarge, ...ended }, resultBytes: 0 };
}

/** A call stopped while it waited for a slot. */
export function stoppedBy(control: CallControl): InvocationChanges {
  return control.stopReason === 'shutdown' ? INSTANCE_STOPPED_CHANGES : { status: 'cancelled' };
}

function failure(error: unknown): InvocationChanges {
  if (!(error instanceof HttpException)) {
    logger.error({ err: error }, 'A long-running call failed');
  }
  const answer = answerOf(error);
  return { error: { status: answer.status, detail: answer.detail }, error_kind: 'tool' };
}

/**
 * Progress of a background call, written to its record at most every 250 ms, the first write 250
 * ms after the call started at the earliest (a call over sooner has its progress written once,
 * with its end); `last` is the latest report, for the record of its end (a write still waiting is
 * dropped then).
 */
export function progressWriter(
  store: InvocationStore,
  id: string,
): { sink: ProgressSink; last: () => InvocationChanges } {
  let writtenAt = Date.now();
  let pending: InvocationRecord['progress'] = null;
  let timer: NodeJS.Timeout | undefined;
  const write = () => {
    timer = undefined;
    writtenAt = Date.now();
    void store.update(id, { progress: pending }, ['running']).catch(() => undefined);
  };
  return {
    sink: (done, total, message) => {
      pending = { done, total, message };
      if (timer) return;
      const wait = PROGRESS_WRITE_MS - (Date.now() - writtenAt);
      if (wait <= 0) write();
      else timer = setTimeout(write, wait);
    },
    last: () => {
      clearTimeout(timer);
      return pending ? { progress: pending } : {};
    },
  };
}
