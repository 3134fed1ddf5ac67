import { Inject, Injectable } from '@nestjs/common';
import { Settings, SETTINGS } from '../settings/settings';
import { ApiKeyRecord, Store } from '../store/store';
import {
  API_KEY_PATTERN,
  displayPrefix,
  generateApiKey,
  generateKeyId,
  hashApiKey,
} from './api-key';
import { ApiKeyView } from './api-keys.dto';
import type { AuthenticatedKey } from './authenticated-key';
import { isValidScope, SCOPE_TEMPLATES } from './scopes';

export interface NewKeyRequest {
  name: string;
  scopes?: string[];
  scope_template?: string;
  plan?: string;
  daily_limit?: number | null;
  rate_limit?: number | null;
  expires_in_days?: number | null;
}

/** One refused field of a key request; `loc` is relative to the request (`['scopes', 0]`). */
export interface KeyRequestIssue {
  loc: (string | number)[];
  msg: string;
}

/** A key request the service refuses: the HTTP API answers it 400, the CLI prints it. */
export class KeyRequestError extends Error {
  readonly issues: KeyRequestIssue[];

  constructor(message: string, loc: (string | number)[] = [], issues?: KeyRequestIssue[]) {
    super(message);
    this.issues = issues ?? [{ loc, msg: message }];
  }
}

/** Last-used times are written at most this often per key, so a busy key costs no write per call. */
const TOUCH_INTERVAL_MS = 60_000;

export function keyStatus(key: Omit<ApiKeyRecord, 'hash'>, now = new Date()): ApiKeyView['status'] {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && Date.parse(key.expires_at) <= now.getTime()) return 'expired';
  return 'active';
}

export function toView(key: ApiKeyRecord | AuthenticatedKey, now = new Date()): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    plan: key.plan,
    daily_limit: key.daily_limit,
    rate_limit: key.rate_limit,
    created_at: key.created_at,
    expires_at: key.expires_at,
    revoked_at: key.revoked_at,
    last_used_at: key.last_used_at,
    status: keyStatus(key, now),
  };
}

@Injectable()
export class ApiKeysService {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly store: Store,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * Resolves the scopes of a request: explicit scopes (each one known), a template, or the
   * `standard` template.
   */
  resolveScopes(request: Pick<NewKeyRequest, 'scopes' | 'scope_template'>): string[] {
    if (request.scopes !== undefined && request.scope_template !== undefined) {
      throw new KeyRequestError('Give either scopes or scope_template, not both', ['scopes']);
    }
    const unknown = (request.scopes ?? []).flatMap((scope, i) =>
      isValidScope(scope) ? [] : [{ loc: ['scopes', i], msg: `Unknown scope '${scope}'` }],
    );
    if (unknown.length) {
      throw new KeyRequestError(unknown.map((issue) => issue.msg).join('; '), [], unknown);
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
    return [...new Set(request.scopes ?? SCOPE_TEMPLATES.standard)];
  }

  /** Creates a key; the returned `key` is the only time its text exists outside the client. */
  async create(
    request: NewKeyRequest,
    now = new Date(),
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const record = this.buildRecord(request, now);
    const key = generateApiKey();
    const full = { ...record, prefix: displayPrefix(key), hash: hashApiKey(key) };
    await this.store.insertKey(full);
    return { key, record: full };
  }

  /** Creates the first key of an empty store; undefined when the store already holds a key. */
  async createInitial(
    now = new Date(),
  ): Promise<{ key: string; record: ApiKeyRecord } | undefined> {
    const record = this.buildRecord(
      { name: 'initial-admin', scope_template: 'admin', plan: this.settings.initialKeyPlan },
      now,
    );
    const key = generateApiKey();
    const full = { ...record, prefix: displayPrefix(key), hash: hashApiKey(key) };
    return (await this.store.insertKeyIfNone(full)) ? { key, record: full } : undefined;
  }

  private buildRecord(request: NewKeyRequest, now: Date): Omit<ApiKeyRecord, 'prefix' | 'hash'> {
    const plan = request.plan ?? this.settings.defaultPlan;
    if (!this.settings.plans[plan]) {
      throw new KeyRequestError(
        `Unknown plan '${plan}'; expected one of: ${Object.keys(this.settings.plans).join(', ')}`,
        ['plan'],
      );
    }
    const days = request.expires_in_days;
    return {
      id: generateKeyId(),
      name: request.name,
      scopes: this.resolveScopes(request),
      plan,
      daily_limit: request.daily_limit ?? null,
      rate_limit: request.rate_limit ?? null,
      created_at: now.toISOString(),
      expires_at: days ? new Date(now.getTime() + days * 86_400_000).toISOString() : null,
      revoked_at: null,
      last_used_at: null,
    };
  }

  /** The active key for a presented token, or undefined for unknown, revoked and expired keys. */
  async authenticate(token: string, now = new Date()): Promise<AuthenticatedKey | undefined> {
    if (!API_KEY_PATTERN.test(token)) return undefined;
    const record = await this.store.findKeyByHash(hashApiKey(token));
    if (!record || keyStatus(record, now) !== 'active') return undefined;
    await this.touch(record.id, now);
    const { hash: _hash, ...key } = record;
    return key;
  }

  private async touch(id: string, now: Date): Promise<void> {
    const last = this.lastTouched.get(id) ?? 0;
    if (now.getTime() - last < TOUCH_INTERVAL_MS) return;
    this.lastTouched.set(id, now.getTime());
    await this.store.touchKey(id, now.toISOString());
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.store.listKeys();
  }

  find(id: string): Promise<ApiKeyRecord | undefined> {
    return this.store.findKeyById(id);
  }

  revoke(id: string, now = new Date()): Promise<boolean> {
    return this.store.revokeKey(id, now.toISOString());
  }
}
