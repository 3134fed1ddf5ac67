import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { spans } from '../kernel/common/tracing-gate';
import { AuditActor, SYSTEM_ACTOR } from '../audit';
import { Clock } from '../kernel/common/clock';
import { planNamed, Settings, SETTINGS } from '../kernel/settings/settings';
import { ApiKeyRecord, KeyStore, mayBeCached } from './key.store';
import {
  API_KEY_PATTERN,
  displayPrefix,
  generateApiKey,
  generateKeyId,
  hashApiKey,
  hashesEqual,
} from './api-key';
import { keyStatus, previousKeyExpiry } from './api-key.view';
import { granted, KeyChangeLog } from './key-events';
import {
  checkExternalId,
  checkKeyName,
  KeyRequestError,
  KeyUpdate,
  NewKeyRequest,
} from './key-request';
import type { AuthenticatedKey } from './caller';
import {
  DEFAULT_SCOPE_TEMPLATE,
  isValidScope,
  SCOPE_TEMPLATES,
  ToolCatalog,
  validScopesText,
} from '../kernel/auth/scopes';

/** Whether the record lets this secret's hash in now: an active key, its secret or one in its grace. */
function opens(record: ApiKeyRecord, hash: string, now: Date): boolean {
  if (keyStatus(record, now) !== 'active') return false;
  return hashesEqual(record.hash, hash) || previousKeyExpiry(record, now) !== null;
}

/** Last-used times are written at most this often per key, so a busy key costs no write per call. */
const TOUCH_INTERVAL_MS = 60_000;
/** Keys whose last touch is remembered before the memory starts over (a key then touches again). */
const MAX_TOUCHED_KEYS = 10_000;

@Injectable()
export class KeysService {
  private readonly logger = new Logger('Keys');
  private readonly lastTouched = new Map<string, number>();
  /** The key each record the store hands out again (frozen: SQLite's, from memory) stands for. */
  private readonly keyOfRecord = new WeakMap<ApiKeyRecord, AuthenticatedKey>();

  constructor(
    private readonly store: KeyStore,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly clock: Clock,
    private readonly changes: KeyChangeLog,
    // The tools whose per-tool scopes may be granted; every process that manages keys has them.
    @Optional() private readonly catalog?: ToolCatalog,
  ) {}

  /** Now, as the injected clock says (tests move it to end a rotation's grace). */
  now(): Date {
    return this.clock.now();
  }

  /**
   * Resolves the scopes of a request: explicit scopes (each one known), a template, or the
   * `standard` template.
   */
  resolveScopes(request: Pick<NewKeyRequest, 'scopes' | 'scope_template'>): string[] {
    if (request.scopes !== undefined && request.scope_template !== undefined) {
      throw new KeyRequestError('Give either scopes or scope_template, not both', ['scopes']);
    }
    // Each entry and the CLI's one line say what is valid: a newcomer's first guess is a tool's name.
    const tools = this.catalog?.names() ?? [];
    const valid = validScopesText(tools);
    const unknown = (request.scopes ?? []).flatMap((scope, i) =>
      isValidScope(scope, tools) ? [] : [{ loc: ['scopes', i], scope }],
    );
    if (unknown.length) {
      throw new KeyRequestError(
        `${unknown.map(({ scope }) => `Unknown scope '${scope}'`).join('; ')}; ${valid}`,
        [],
        unknown.map(({ loc, scope }) => ({ loc, msg: `Unknown scope '${scope}'; ${valid}` })),
      );
    }
    if (request.scope_template !== undefined) {
      const template = SCOPE_TEMPLATES[request.scope_template];
      if (!template) {
        throw new KeyRequestError(
          `Unknown scope template '${request.scope_template}'; expected one of: ${Object.keys(SCOPE_TEMPLATES).join(', ')}`,
          ['scope_template'],
        );
      }
      return [...template];
    }
    return [...new Set(request.scopes ?? SCOPE_TEMPLATES[DEFAULT_SCOPE_TEMPLATE])];
  }

  /** Creates a key; the returned `key` is the only time its text exists outside the client. */
  async create(
    request: NewKeyRequest,
    actor: AuditActor,
    now = this.clock.now(),
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const record = this.buildRecord(request, now);
    const key = generateApiKey();
    const full = { ...record, prefix: displayPrefix(key), hash: hashApiKey(key) };
    await this.store.insertKey(full);
    await this.changes.recorded(actor, 'api_key.create', full, granted(full));
    return { key, record: full };
  }

  /** Checks a plan name against the operator's plans (400 for an unknown one). */
  checkPlan(plan: string): void {
    if (!planNamed(this.settings.plans, plan)) {
      throw new KeyRequestError(
        `Unknown plan '${plan}'; expected one of: ${Object.keys(this.settings.plans).join(', ')}`,
        ['plan'],
      );
    }
  }

  /**
   * A change as `update` takes it: its name and plan checked, its scopes resolved (each known);
   * KeyRequestError (400) otherwise. The routes and the CLI check a change once, before anything
   * else decides on it.
   */
  checkedUpdate(changes: KeyUpdate): KeyUpdate {
    if (changes.name !== undefined) checkKeyName(changes.name);
    if (typeof changes.external_id === 'string') checkExternalId(changes.external_id);
    if (changes.plan !== undefined) this.checkPlan(changes.plan);
    if (changes.scopes === undefined) return changes;
    return { ...changes, scopes: this.resolveScopes({ scopes: changes.scopes }) };
  }

  /**
   * Changes a key's settings, `changes` as checkedUpdate made them; undefined for an unknown id.
   * The next request, on any instance, sees them. Only fields that really change are written and
   * audited.
   */
  async update(
    before: ApiKeyRecord,
    changes: KeyUpdate,
    actor: AuditActor,
  ): Promise<ApiKeyRecord | undefined> {
    const diff: Record<string, { from: unknown; to: unknown }> = {};
    const effective: Record<string, unknown> = {};
    for (const [field, to] of Object.entries(changes) as [keyof KeyUpdate, unknown][]) {
      if (to === undefined) continue;
      const from = before[field];
      if (JSON.stringify(from) === JSON.stringify(to)) continue;
      diff[field] = { from, to };
      effective[field] = to;
    }
    if (!Object.keys(diff).length) return before;
    const record = await this.store.updateKey(before.id, effective);
    if (!record) return record;
    await this.changes.recorded(actor, 'api_key.update', record, diff);
    return record;
  }

  /**
   * Gives a key a new secret: same id, settings and usage. The old secret keeps working for
   * `graceSeconds` (0: not at all); a secret rotated out earlier stops at once.
   */
  async rotate(
    id: string,
    graceSeconds: number,
    actor: AuditActor,
  ): Promise<{ key: string; record: ApiKeyRecord } | undefined> {
    const current = await this.store.findKeyById(id);
    if (!current) return undefined;
    const now = this.clock.now();
    const key = generateApiKey();
    const record = await this.store.rotateKey(id, {
      hash: hashApiKey(key),
      prefix: displayPrefix(key),
      previous_hash: graceSeconds > 0 ? current.hash : null,
      previous_key_expires_at:
        graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000).toISOString() : null,
    });
    if (!record) return undefined;
    await this.changes.recorded(actor, 'api_key.rotate', record, { grace_seconds: graceSeconds });
    return { key, record };
  }

  /** Creates the first key of an empty store; undefined when the store already holds a key. */
  async createInitial(
    now = this.clock.now(),
  ): Promise<{ key: string; record: ApiKeyRecord } | undefined> {
    const record = this.buildRecord(
      { name: 'initial-admin', scope_template: 'admin', plan: this.settings.initialKeyPlan },
      now,
    );
    const key = generateApiKey();
    const full = { ...record, prefix: displayPrefix(key), hash: hashApiKey(key) };
    if (!(await this.store.insertKeyIfNone(full))) return undefined;
    await this.changes.recorded(SYSTEM_ACTOR, 'api_key.create', full, granted(full));
    return { key, record: full };
  }

  private buildRecord(request: NewKeyRequest, now: Date): Omit<ApiKeyRecord, 'prefix' | 'hash'> {
    checkKeyName(request.name);
    if (typeof request.external_id === 'string') checkExternalId(request.external_id);
    const plan = request.plan ?? this.settings.defaultPlan;
    this.checkPlan(plan);
    const days = request.expires_in_days;
    return {
      id: generateKeyId(),
      name: request.name,
      scopes: this.resolveScopes(request),
      plan,
      daily_limit: request.daily_limit ?? null,
      monthly_limit: request.monthly_limit ?? null,
      rate_limit: request.rate_limit ?? null,
      created_at: now.toISOString(),
      expires_at: days ? new Date(now.getTime() + days * 86_400_000).toISOString() : null,
      revoked_at: null,
      last_used_at: null,
      enabled: true,
      previous_hash: null,
      previous_key_expires_at: null,
      external_id: request.external_id ?? null,
    };
  }

  /**
   * The active key for a presented token, or undefined for unknown, revoked, expired and disabled
   * keys, and for a rotated-out secret whose grace is over. Read from the store on every call, so a
   * change made on any instance holds from the next request: a shared store may answer from a copy
   * kept between calls, which the call's count then checks (see CallCounter), but a refusal is
   * made on the record itself. `fresh`: read the record itself in any case.
   */
  async authenticate(
    token: string,
    { fresh = false, now = this.clock.now() }: { fresh?: boolean; now?: Date } = {},
  ): Promise<AuthenticatedKey | undefined> {
    if (!API_KEY_PATTERN.test(token)) return undefined;
    const hash = hashApiKey(token);
    let record = await this.store.findKeyByHash(hash, { fresh });
    if (record && !fresh && mayBeCached(record) && !opens(record, hash, now)) {
      record = await this.store.findKeyByHash(hash, { fresh: true });
    }
    if (!record || !opens(record, hash, now)) return undefined;
    this.touch(record.id, now);
    return this.keyOf(record);
  }

  /** A record without its secrets' hashes; made once for a record the store keeps frozen. */
  private keyOf(record: ApiKeyRecord): AuthenticatedKey {
    const known = this.keyOfRecord.get(record);
    if (known) return known;
    const { hash: _hash, previous_hash: _previous, ...fields } = record;
    const key: AuthenticatedKey = { kind: 'key', ...fields };
    if (Object.isFrozen(record)) this.keyOfRecord.set(record, Object.freeze(key));
    return key;
  }

  /**
   * Writes the key's last-used time, at most once a minute, without holding the call: it is sent
   * before the call's count (the same group commit on SQLite, the same connection on Redis), so a
   * request made after the answer reads it; one that fails is logged, the call goes on.
   */
  private touch(id: string, now: Date): void {
    const last = this.lastTouched.get(id) ?? 0;
    if (now.getTime() - last < TOUCH_INTERVAL_MS) return;
    if (this.lastTouched.size >= MAX_TOUCHED_KEYS) this.lastTouched.clear();
    this.lastTouched.set(id, now.getTime());
    // Outside the call's spans: it does not wait for it (the first call in a minute as the others).
    spans
      .detached(() => this.store.touchKey(id, now.toISOString()))
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'Could not write a last-used time'),
      );
  }

  list(page?: Parameters<KeyStore['listKeys']>[0]): Promise<ApiKeyRecord[]> {
    return this.store.listKeys(page);
  }

  find(id: string): Promise<ApiKeyRecord | undefined> {
    return this.store.findKeyById(id);
  }

  /** Revokes a key (the first time is kept and audited); false for an unknown id. */
  async revoke(id: string, actor: AuditActor, now = this.clock.now()): Promise<boolean> {
    const before = await this.store.findKeyById(id);
    if (!before) return false;
    const revoked = await this.store.revokeKey(id, now.toISOString());
    if (revoked && !before.revoked_at) {
      await this.changes.recorded(
        actor,
        'api_key.revoke',
        { ...before, revoked_at: now.toISOString() },
        {},
      );
    }
    return revoked;
  }
}
