import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { ApiError } from '../kernel/errors/api-error';
import { Clock } from '../kernel/common/clock';
import { Periodic } from '../kernel/common/periodic';
import { retryAfterText } from '../limits';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { IdempotencyBegin, IdempotencyClaim, IdempotencyStore } from './idempotency.store';

/** The REST header, and where an MCP tools/call carries the same value (one scope with REST). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const MCP_IDEMPOTENCY_META = 'io.tis/idempotency-key';

/** 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** A kept answer is replayed this long after the call completed. */
export const IDEMPOTENCY_KEEP_MS = 24 * 3_600_000;
/** Answers larger than this (serialised) are not kept. */
export const IDEMPOTENCY_MAX_ANSWER_BYTES = 64 * 1024;
/**
 * What an entry costs the key's byte budget beside its scope and answer: its fingerprint, token,
 * status and the store's own bookkeeping, about this many bytes.
 */
export const IDEMPOTENCY_ENTRY_OVERHEAD = 128;
/** Every key's expired answers are forgotten this often (and at start-up): at least hourly. */
export const IDEMPOTENCY_PURGE_MS = 3_600_000;

/**
 * The scope of the entries that count long-running calls' results against their caller's budget:
 * no tool name starts with `~`, so no client's Idempotency-Key ever meets one.
 */
const RESULT_SCOPE = '~invocation';

/** Statuses of answers that never ran the tool: such answers are not kept. */
const NOT_RUN = new Set([401, 402, 403, 429]);

/** JSON with every object's keys sorted: the same request always reads the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A request's identity: SHA-256 of its canonical JSON (no body: `{}`). Bodies are never stored. */
export function fingerprint(body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(body ?? {}))
    .digest('hex');
}

/**
 * Idempotent tool calls: one entry per (API key, tool, Idempotency-Key) in the store, claimed
 * atomically per key id (so two concurrent first calls run the tool once), kept 24 hours. A key
 * keeps at most IDEMPOTENCY_MAX_ENTRIES_PER_KEY entries and IDEMPOTENCY_MAX_BYTES_PER_KEY bytes:
 * past either, a new Idempotency-Key is refused (429) until its oldest entry expires. Every key's
 * expired entries are purged hourly, so that nothing a client sent outlives its 24 hours.
 */
@Injectable()
export class IdempotencyService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  // At start-up too: a store that was down for a while (or a key revoked since) holds expired answers.
  private readonly purging = new Periodic({
    everyMs: IDEMPOTENCY_PURGE_MS,
    work: () => this.purgeExpired(),
    onError: () => undefined,
  });

  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    this.purging.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.purging.stop();
  }

  /** Forgets the expired answers of every key, revoked ones too; never throws (logged). */
  async purgeExpired(): Promise<number> {
    try {
      const purged = await this.store.purgeIdempotent(this.clock.now().getTime());
      if (purged) this.logger.log(`Forgot ${purged} expired idempotent answer(s)`);
      return purged;
    } catch (error) {
      this.logger.warn({ err: error }, 'Could not purge expired idempotent answers');
      return 0;
    }
  }

  /**
   * Claims (key, tool, Idempotency-Key) for this request, or says how it stands. Its marker lives
   * `runningForMs` (the call's deadline, or the request timeout if longer): a call still running
   * is 409 to its retries until then, one whose process died is not for longer.
   */
  async begin(
    keyId: string,
    tool: string,
    idempotencyKey: string,
    body: unknown,
    runningForMs = 0,
  ): Promise<{ claim: IdempotencyClaim; begun: IdempotencyBegin }> {
    const scope = `${tool}:${idempotencyKey}`;
    const claim: IdempotencyClaim = {
      keyId,
      scope,
      fingerprint: fingerprint(body),
      token: randomUUID(),
      markerBytes: Buffer.byteLength(scope) + IDEMPOTENCY_ENTRY_OVERHEAD,
    };
    const now = this.clock.now().getTime();
    // A marker whose request died lives no longer than its call may run.
    const runningUntil = now + Math.max(this.settings.httpTimeouts.requestMs, runningForMs);
    const begun = await this.store.beginIdempotent(claim, now, runningUntil, this.caps());
    return { claim, begun };
  }

  private caps(): { entries: number; bytes: number } {
    return {
      entries: this.settings.idempotency.maxEntriesPerKey,
      bytes: this.settings.idempotency.maxBytesPerKey,
    };
  }

  /**
   * A long-running call's result counts against its caller's budget of kept answers once it ends
   * (keepResult): a caller that keeps as much as it may now is refused (429) before anything is
   * charged. A read: nothing is reserved, so the calls still running when the budget fills may
   * take it past its cap by their results (docs/decisions.md).
   */
  async checkResultRoom(callerId: string): Promise<void> {
    const fullUntil = await this.store.fullUntil(callerId, this.clock.now().getTime(), this.caps());
    if (fullUntil !== undefined) throw this.budgetFull(fullUntil);
  }

  /** Counts a long-running call's result of `bytes` against its caller's budget until `untilMs`. */
  async keepResult(
    callerId: string,
    invocationId: string,
    bytes: number,
    untilMs: number,
  ): Promise<void> {
    const scope = `${RESULT_SCOPE}:${invocationId}`;
    const size = Buffer.byteLength(scope) + IDEMPOTENCY_ENTRY_OVERHEAD + bytes;
    try {
      await this.store.keepSize(callerId, scope, size, untilMs);
    } catch (error) {
      this.logger.warn({ err: error }, 'Could not count a result against the budget');
    }
  }

  /**
   * Forgets what is kept for a client's Idempotency-Key of a call accepted that never ran (it was
   * refunded): a retry with the key runs anew.
   */
  async forget(callerId: string, tool: string, idempotencyKey: string): Promise<void> {
    await this.store.forgetAccepted(callerId, `${tool}:${idempotencyKey}`);
  }

  /** The 429 of a caller that keeps as much as it may: until its oldest kept answer expires. */
  budgetFull(retryAtMs: number): ApiError {
    const wait = this.secondsUntil(retryAtMs);
    return new ApiError(
      429,
      `Too many kept idempotent answers for this key. ${retryAfterText(wait)}`,
      { 'Retry-After': wait },
    );
  }

  /** Whole seconds until a key that is full may keep a new answer (at least 1). */
  secondsUntil(retryAtMs: number): number {
    return Math.max(1, Math.ceil((retryAtMs - this.clock.now().getTime()) / 1000));
  }

  /**
   * Keeps the tool's answer (24 h), or drops the claim when it is not to be kept: the tool never
   * ran (`ran` false: its input was refused; a retry with a corrected body must run), a status
   * that is not kept, or an answer over 64 KB.
   */
  async keep(claim: IdempotencyClaim, status: number, body: unknown, ran = true): Promise<void> {
    try {
      const text = JSON.stringify(body ?? null);
      const bytes = Buffer.byteLength(text);
      if (!ran || !keptStatus(status) || bytes > IDEMPOTENCY_MAX_ANSWER_BYTES) {
        await this.store.releaseIdempotent(claim);
        return;
      }
      const until = this.clock.now().getTime() + IDEMPOTENCY_KEEP_MS;
      await this.store.completeIdempotent(claim, status, text, until, bytes);
    } catch (error) {
      // The answer still goes out; the marker expires with the request timeout.
      this.logger.warn({ err: error }, 'Could not keep an idempotent answer');
    }
  }

  /** Drops the claim of a call refused after it was made (402 from the quota, a store failure). */
  async release(claim: IdempotencyClaim): Promise<void> {
    try {
      await this.store.releaseIdempotent(claim);
    } catch (error) {
      this.logger.warn({ err: error }, 'Could not release an idempotency marker');
    }
  }
}

/**
 * A call's hold on its Idempotency-Key, as the idempotency step decided it: once the tool has run
 * its answer is kept (`keep`), or the hold is given up when the call is refused after it (`release`).
 * The one place an idempotent answer is kept, whatever the transport.
 */
export class IdempotencyEntry {
  constructor(
    private readonly service: IdempotencyService,
    private readonly entry: IdempotencyClaim,
  ) {}

  /** Keeps the answer (`ran` false: the tool never ran, its input was refused: not kept). */
  complete(status: number, body: unknown, ran = true): Promise<void> {
    return this.service.keep(this.entry, status, body, ran);
  }

  abandon(): Promise<void> {
    return this.service.release(this.entry);
  }
}

/** Answers of a tool that ran: 2xx (a 202 of a call in the background), its own 4xx, 500, 504. */
function keptStatus(status: number): boolean {
  if (status >= 500) return status === 500 || status === 504;
  return !NOT_RUN.has(status);
}
