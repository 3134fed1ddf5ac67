import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AuditService, type AuditActor } from '../audit';
import { hasScope } from '../kernel/auth/scopes';
import { Clock } from '../kernel/common/clock';
import { ApiError } from '../kernel/errors/api-error';
import { checkedMetadata } from './run-input';
import { UsageStore } from '../limits';
import { PrincipalsService } from '../oauth';
import { KeysService } from '../subjects';
import type { ApiKeyRecord, Caller, PrincipalRecord } from '../subjects';
import { WebhooksService } from '../webhooks';
import {
  defaultRunScopes,
  hashRunToken,
  isRunScope,
  newRunId,
  newRunToken,
  RUN_TOKEN_PATTERN,
} from './run-access';
import { runCaller } from './run-caller';
import { createdRunExpiry, runLease } from './run-lifetime';
import { runMe, runView } from './run-view';
import { RunEndReason, RunRecord, RunStatus, RunStore, runStatus } from './run.store';
import type { RunChanges, RunLease } from './run.store';
import {
  CreatedRun,
  CreateRunInput,
  RUN_TTL,
  RunMe,
  RunPage,
  RunView,
  UpdateRunInput,
} from './runs.dto';

/** Active runs a parent may have at once. */
export const MAX_ACTIVE_RUNS = 1000;
/** Ended and expired runs are kept this many days. */
export const RUNS_KEEP_DAYS = 30;
export const RUN_NOT_FOUND = 'Run not found';
export const RUN_ENDED = 'Run has ended.';

/** What a run's token opens: its parent as the caller, or a run that has ended. */
export type RunAccess = { caller: Caller } | { ended: true } | undefined;

/** Who may see and change a run: its parent, and callers holding the admin scope. */
function mayReach(caller: Caller, run: RunRecord, admin: 'admin:read' | 'admin:write'): boolean {
  return (!caller.run && caller.id === run.parent.id) || hasScope(caller.scopes, admin);
}

/**
 * Runs (docs/runs-and-ledger.md): a budget of credits and a token a key or a principal hands an
 * agent for one task. The run's calls are its parent's (its rate, credits and scopes) and count
 * against the run's budget in the same step of the store (UsageStore).
 */
@Injectable()
export class RunsService {
  private readonly logger = new Logger('Runs');
  private readonly endListeners: ((run: RunRecord) => Promise<void>)[] = [];
  /** The caller each run record made, with the parent record it was made of (see authenticate). */
  private readonly callers = new WeakMap<RunRecord, { parent: object; caller: Caller }>();

  constructor(
    private readonly store: RunStore,
    private readonly usage: UsageStore,
    private readonly keys: KeysService,
    private readonly principals: PrincipalsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    @Optional() @Inject(WebhooksService) private readonly webhooks?: WebhooksService,
  ) {}

  async create(caller: Caller, input: CreateRunInput, actor: AuditActor): Promise<CreatedRun> {
    if (caller.run) throw new ApiError(403, 'A run cannot create runs.');
    const scopes = input.scopes ?? defaultRunScopes(caller.scopes);
    const refused = scopes.find((scope) => !isRunScope(scope) || !hasScope(caller.scopes, scope));
    if (refused !== undefined) {
      throw new ApiError(403, `A run may only hold tool scopes its creator holds: '${refused}'.`);
    }
    if (!scopes.length) throw new ApiError(403, 'The creator holds no tool scope to give a run.');
    const metadata = checkedMetadata(input.metadata);
    const now = this.clock.now();
    const expiresAt = createdRunExpiry(caller, input.ttl_seconds ?? RUN_TTL.default, now.getTime());
    const token = newRunToken();
    const run: RunRecord = {
      id: newRunId(now.getTime()),
      token_hash: hashRunToken(token),
      parent: { kind: caller.kind, id: caller.id },
      budget: input.budget,
      scopes,
      label: input.label ?? null,
      metadata,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      ended_at: null,
      ended_reason: null,
    };
    if (!(await this.store.insert(run, MAX_ACTIVE_RUNS))) {
      throw new ApiError(429, 'Too many active runs.');
    }
    await this.audit.record(actor, 'run.created', run.id, {
      budget: run.budget,
      scopes,
      expires_at: run.expires_at,
    });
    return { ...this.view(run, {}), token };
  }

  async list(
    caller: Caller,
    query: { parent?: string; status?: RunStatus; before?: string; limit: number },
  ): Promise<RunPage> {
    const admin = hasScope(caller.scopes, 'admin:read');
    const parentId = admin ? query.parent : caller.id;
    if (caller.run) return { runs: [], next_cursor: null };
    const now = this.clock.now().toISOString();
    const runs = await this.store.list({ ...query, parentId, now, limit: query.limit + 1 });
    const page = runs.slice(0, query.limit);
    const spendings = await Promise.all(
      page.map((run) => this.usage.getRunSpending(run.parent.id, run.id)),
    );
    return {
      runs: page.map((run, i) => this.listed(run, spendings[i])),
      next_cursor: runs.length > query.limit ? page[page.length - 1].id : null,
    };
  }

  /** A run's view in a list: what it spent in all, without the spending per tool. */
  private listed(run: RunRecord, spending: Record<string, number>): RunView {
    const { spent_by_tool: _byTool, ...view } = this.view(run, spending);
    return view;
  }

  async get(caller: Caller, id: string): Promise<RunView> {
    const run = await this.reachable(caller, id, 'admin:read');
    const spending = await this.usage.getRunSpending(run.parent.id, run.id);
    return this.view(run, spending);
  }

  /**
   * Changes a run's budget or label, and with `ttl_seconds` its time from now (runLease: a
   * principal's run by that principal only, within its current token). A run that is no longer
   * active gets no more time (409); nothing is written before every check has passed.
   */
  async update(
    caller: Caller,
    id: string,
    input: UpdateRunInput,
    actor: AuditActor,
  ): Promise<RunView> {
    const run = await this.reachable(caller, id, 'admin:write');
    const nowMs = this.clock.nowMs();
    const lease =
      input.ttl_seconds === undefined ? undefined : runLease(caller, run, input.ttl_seconds, nowMs);
    const changes: RunChanges = { budget: input.budget, label: input.label };
    for (const name of ['budget', 'label'] as const) {
      if (changes[name] === undefined) delete changes[name];
    }
    if (lease) await this.extend(id, lease, nowMs);
    const after = await this.store.update(id, changes);
    if (!after) throw new ApiError(404, RUN_NOT_FOUND);
    const audited: RunChanges & Partial<RunLease> = { ...changes, ...lease };
    if (Object.keys(audited).length) await this.audit.record(actor, 'run.updated', id, audited);
    return this.get(caller, id);
  }

  private async extend(id: string, lease: RunLease, nowMs: number): Promise<void> {
    const after = await this.store.extend(id, lease, new Date(nowMs).toISOString());
    if (!after) throw new ApiError(409, RUN_ENDED);
  }

  /** A run's token's own view of its run (`/auth/me`). */
  async me(caller: Caller): Promise<RunMe> {
    const run = caller.run && (await this.store.find(caller.run.id));
    if (!run) throw new ApiError(404, RUN_NOT_FOUND);
    return runMe(run, caller, await this.usage.getRunSpending(run.parent.id, run.id));
  }

  /** Ends a run at once: its token is refused from the next call on, on every instance. */
  async remove(caller: Caller, id: string, actor: AuditActor): Promise<RunView> {
    const run = await this.reachable(caller, id, 'admin:write');
    const ended = await this.end(run, 'deleted');
    if (ended) await this.audit.record(actor, 'run.deleted', id, {});
    return this.get(caller, id);
  }

  /**
   * What a presented `sk_run_` token opens (undefined: no run has it). The run and its parent are
   * read on every call (the embedded store answers from memory until anything changes), so a run
   * ended, or a parent revoked or disabled, anywhere is refused from the next call; the caller made
   * of one run and one parent record is made once.
   */
  async authenticate(token: string): Promise<RunAccess> {
    if (!RUN_TOKEN_PATTERN.test(token)) return undefined;
    const run = await this.store.findByHash(hashRunToken(token));
    if (!run) return undefined;
    if (run.ended_at !== null) return { ended: true };
    const nowMs = this.clock.nowMs();
    if (Date.parse(run.expires_at) <= nowMs) {
      await this.end(run, 'expired');
      return { ended: true };
    }
    const parent = await this.parentOf(run, nowMs);
    if (typeof parent === 'string') {
      await this.end(run, parent);
      return { ended: true };
    }
    const known = this.callers.get(run);
    if (known?.parent === parent) return { caller: known.caller };
    const caller = runCaller(run, parent, (principal) => this.principals.planOf(principal));
    if (Object.isFrozen(run) && Object.isFrozen(parent)) this.callers.set(run, { parent, caller });
    return { caller };
  }

  /** The parent's record, or why the run ends (its parent is gone, expired or off). */
  private async parentOf(
    run: RunRecord,
    nowMs: number,
  ): Promise<ApiKeyRecord | PrincipalRecord | RunEndReason> {
    if (run.parent.kind === 'key') {
      const key = await this.keys.find(run.parent.id);
      if (!key || key.revoked_at) return 'parent_revoked';
      if (key.expires_at !== null && Date.parse(key.expires_at) <= nowMs) return 'parent_revoked';
      return key.enabled ? key : 'parent_disabled';
    }
    const principal = await this.principals.find(run.parent.id);
    if (!principal) return 'parent_revoked';
    return principal.enabled ? principal : 'parent_disabled';
  }

  /** `listener` runs after each run this instance ends (the invocations cancel its queued calls). */
  onEnded(listener: (run: RunRecord) => Promise<void>): void {
    this.endListeners.push(listener);
  }

  /** Whether a run is active now (its calls may start). */
  async isActive(id: string): Promise<boolean> {
    const run = await this.store.find(id);
    return run !== undefined && runStatus(run, this.clock.now().toISOString()) === 'active';
  }

  /** Ends a run (the first end stands) and tells who listens; false when it had ended. */
  private async end(run: RunRecord, reason: RunEndReason): Promise<boolean> {
    const after = await this.store.end(run.id, reason, this.clock.now().toISOString());
    if (!after) return false;
    for (const listener of this.endListeners) {
      await listener(after).catch((error: unknown) =>
        this.logger.warn({ err: error }, `Could not settle the calls of ${run.id}`),
      );
    }
    const spending = await this.usage.getRunSpending(run.parent.id, run.id);
    await this.webhooks
      ?.publish('run.ended', {
        run: this.view(after, spending),
      })
      .catch((error: unknown) => this.logger.warn({ err: error }, 'run.ended not stored'));
    return true;
  }

  /** Forgets the runs ended more than 30 days ago, and what they spent. */
  async purge(): Promise<number> {
    const before = new Date(this.clock.nowMs() - RUNS_KEEP_DAYS * 86_400_000).toISOString();
    let purged = 0;
    for (;;) {
      const runs = await this.store.purge(before, 500);
      for (const run of runs) await this.usage.deleteRunSpending(run.parent.id, run.id);
      purged += runs.length;
      if (runs.length < 500) return purged;
    }
  }

  private async reachable(
    caller: Caller,
    id: string,
    admin: 'admin:read' | 'admin:write',
  ): Promise<RunRecord> {
    const run = await this.store.find(id);
    if (!run || !mayReach(caller, run, admin)) throw new ApiError(404, RUN_NOT_FOUND);
    return run;
  }

  private view(run: RunRecord, spending?: Record<string, number>): RunView {
    return runView(run, this.clock.now().toISOString(), spending);
  }
}
