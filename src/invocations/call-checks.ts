import { HttpException, Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { AuthChallenges } from '../kernel/auth/challenges';
import { hasAnyScope } from '../kernel/auth/scopes';
import { IdempotencyCheck, IdempotencyEntry, IdempotencyService } from '../idempotency';
import { discoverInOrder } from '../kernel/common/discovery';
import { Charge, LimitsService, SubjectRecordChanged } from '../limits';
import type { LedgerContext } from '../limits';
import { MetricsService } from '../metrics';
import type { Caller } from '../subjects';
import { ToolRegistry } from '../tools/index';
import { QuotaThresholds } from '../webhooks';
import { AtCapacity, shareHolder } from './at-capacity';
import { Authentication } from '../auth';
import type { Call, CallResponse } from './call';
import { CallCheck } from './call-check';
import { ToolSlots } from './tool-slots';
import { idempotencyOwner } from './invocation-records';
import type { Admission } from './tool-slots';

/** A record that keeps changing under every attempt is answered 503 (SubjectRecordChanged) after these. */
const MAX_ATTEMPTS = 3;

/** What the checks of a call decided, each part of the type of the feature that decides it. */
export interface AdmittedCall {
  /** Who calls (authentication). */
  caller: Caller;
  /** What the call was charged (limits): its rate, and a tool call's credits. */
  charge: Charge;
  /** A tool call's place at its tool: a slot, or a place in its queue (invocations). */
  admission?: Admission;
  /** A tool call's Idempotency-Key entry, whose answer is kept once the tool has run. */
  entry?: IdempotencyEntry;
}

/** What an attempt took that a refusal gives back, and what it was decided on. */
interface Attempt {
  fresh: boolean;
  cached?: boolean;
  admission?: Admission;
  entry?: IdempotencyEntry;
}

/**
 * The checks of every keyed call, in the contract's order, for REST (InvocationGuard, the tool
 * routes) and MCP over HTTP and stdio (ToolInvoker) alike. Read `checkOnce` top to bottom: it is
 * the order (docs/architecture.md, "How a call goes"). A module adds a check of its own with a
 * @CallCheck() provider, run at step 3.
 */
@Injectable()
export class CallChecks implements OnModuleInit {
  private added: CallCheck[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly authentication: Authentication,
    private readonly challenges: AuthChallenges,
    private readonly registry: ToolRegistry,
    private readonly slots: ToolSlots,
    private readonly idempotency: IdempotencyService,
    private readonly idempotencyCheck: IdempotencyCheck,
    private readonly limits: LimitsService,
    private readonly thresholds: QuotaThresholds,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  onModuleInit(): void {
    this.added = discoverInOrder<CallCheck>(this.discovery, CallCheck);
  }

  /**
   * Runs the checks and answers what they decided; the first refusal (an ApiError) ends the call,
   * after what was taken before it is given back. `response` receives what the answer carries,
   * refused or not: its headers (X-RateLimit-*, X-Quota-*), and the caller once known.
   *
   * A call decided on a cached copy of its caller's record (a shared store's) starts over once on
   * the record itself when the copy may have misled it: its count found the record changed
   * (nothing was counted), or it was refused its scope (a change on another instance may have
   * granted it).
   */
  async check(call: Call, response: CallResponse = { headers: {} }): Promise<AdmittedCall> {
    for (let attempt = 1; ; attempt++) {
      const taken: Attempt = { fresh: attempt > 1 };
      try {
        return await this.checkOnce(call, response, taken);
      } catch (refusal) {
        taken.admission?.release();
        await taken.entry?.abandon();
        if (attempt === MAX_ATTEMPTS || !worthAnotherAttempt(refusal, taken)) throw refusal;
        for (const name of Object.keys(response.headers)) delete response.headers[name];
      }
    }
  }

  private async checkOnce(
    call: Call,
    response: CallResponse,
    taken: Attempt,
  ): Promise<AdmittedCall> {
    // 1. Who calls: a key or a principal (401; 429 after repeated failures; 503, issuer down).
    //    Already known when its transport authenticated it for this very call.
    let caller = call.caller;
    if (!caller) {
      const found = await this.authentication.authenticate(call, taken.fresh);
      ({ caller, cached: taken.cached } = found);
    }
    response.caller = caller;

    // 2. One of the scopes the route or the tool asks for (403).
    if (call.scopes && !hasAnyScope(caller.scopes, call.scopes)) {
      throw this.challenges.insufficientScope(call);
    }

    // 3. The checks modules add (@CallCheck), before anything is taken or charged.
    for (const added of this.added) {
      const pending = added.check(call, caller);
      if (pending) await pending;
    }

    // 4. A tool call's place at its tool, within its caller's fair share: a slot, a place in its
    //    queue, or none, refused at 8 (after the rate, so that a replay is served whatever the
    //    capacity).
    const tool = call.tool === undefined ? undefined : this.registry.get(call.tool);
    const place = tool && this.slots.reserve(tool.name, tool.runtime, shareHolder(caller));
    const admission = (taken.admission = typeof place === 'string' ? undefined : place);

    // 5. A call to run in the background: room for its result among its caller's kept answers (429).
    if (call.background !== undefined && admission) {
      await this.idempotency.checkResultRoom(caller.id);
    }

    // 6. The rate (429); a tool call's credits in the same count when nothing stands between (402).
    let { charge, headers } = await this.limits.chargeRate(caller, {
      tool: call.tool,
      cost: tool?.runtime.cost,
      idempotent: call.idempotencyKey !== undefined,
      rateLimitCounted: call.rateLimitCounted === true,
      admitted: call.tool === undefined || admission !== undefined,
      ledger: call.tool === undefined ? undefined : ledgerContext(call, tool?.source),
    });
    Object.assign(response.headers, headers);

    // 7. The Idempotency-Key: a replay, 409, 422, 429, or the entry its answer will be kept in.
    if (call.tool !== undefined && call.idempotencyKey !== undefined) {
      taken.entry = await this.idempotencyCheck.claim({
        callerId: idempotencyOwner(caller.id, caller.run?.id),
        tool: call.tool,
        key: call.idempotencyKey,
        body: call.body,
        timeoutMs: tool?.runtime.timeoutMs,
      });
    }

    // 8. No slot and no place in the queue: 503, charged its rate only.
    if (typeof place === 'string') {
      this.metrics?.observeAtCapacity(tool!.name);
      throw new AtCapacity(tool!.name, place);
    }

    // 9. Credits still pending after the Idempotency-Key (402).
    if (charge.status === 'pending') {
      ({ charge, headers } = await this.limits.chargeCredits(charge));
      Object.assign(response.headers, headers);
    }
    response.quota = charge.state;

    // 10. A quota threshold crossed by this charge (80 %, 100 %): its event stored for webhooks.
    const crossed = charge.state && this.thresholds.check(caller, charge.state);
    if (crossed) await crossed;
    return { caller, charge, admission, entry: taken.entry };
  }
}

const LEDGER_TRANSPORTS = { rest: 'rest', 'mcp-http': 'mcp', 'mcp-stdio': 'stdio' } as const;

/** How a tool call came, as its ledger entry tells it. */
function ledgerContext(call: Call, source: string | undefined): LedgerContext {
  return {
    transport: LEDGER_TRANSPORTS[call.transport],
    request_id: call.requestId ?? null,
    idempotency_key: typeof call.idempotencyKey === 'string' ? call.idempotencyKey : null,
    invocation_id: call.background ?? null,
    source: source ?? null,
  };
}

function worthAnotherAttempt(refusal: unknown, taken: Attempt): boolean {
  if (refusal instanceof SubjectRecordChanged) return true;
  return taken.cached === true && refusal instanceof HttpException && refusal.getStatus() === 403;
}
