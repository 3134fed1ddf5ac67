/**
 * A principal: whom an OAuth access token speaks for (an issuer's subject, whatever the client),
 * known from its first token on. It has what a key has for limits (a plan, its own limits, an on/off
 * switch) and none of a key's secrets: its tokens are the issuer's.
 */
export interface PrincipalRecord {
  /** `prn_` and 32 hex digits of a hash of issuer and subject (principalId). */
  id: string;
  issuer: string;
  subject: string;
  /**
   * The client its last token seen was issued to (`client_id`, else `azp`), as of its last sight;
   * null when that token named none.
   */
  client_id: string | null;
  /**
   * The plan an operator set (PATCH); null: the plan its tokens name (OAUTH_PLAN_CLAIM), else
   * OAUTH_DEFAULT_PLAN.
   */
  plan: string | null;
  /** The plan its last token named (OAUTH_PLAN_CLAIM), as of its last sight; null: none. */
  token_plan: string | null;
  daily_limit: number | null;
  monthly_limit: number | null;
  rate_limit: number | null;
  /** A disabled principal's tokens are refused (401) until it is enabled again. */
  enabled: boolean;
  /**
   * Every scope its tokens have carried (sorted), what the no-escalation rule holds it to; null:
   * none recorded yet, which counts as `*`.
   */
  scopes: string[] | null;
  first_seen_at: string;
  last_seen_at: string;
  /**
   * The customer or account it belongs to: an operator's (PATCH), or its tokens' claim
   * (OAUTH_EXTERNAL_ID_CLAIM), whichever wrote last; null: none.
   */
  external_id: string | null;
  /** A shared store's count of the record's changes (Redis), as a key record's (see KeyStore). */
  revision?: number;
}

/**
 * A principal as first seen: no plan or limits of its own, enabled, no scope recorded; the
 * external id its first token's claim names, if any.
 */
export type NewPrincipalRecord = Pick<
  PrincipalRecord,
  'id' | 'issuer' | 'subject' | 'client_id' | 'first_seen_at' | 'last_seen_at'
> &
  Partial<Pick<PrincipalRecord, 'external_id'>>;

/** What an operator may change of a principal. */
export type PrincipalChanges = Partial<
  Pick<
    PrincipalRecord,
    'plan' | 'daily_limit' | 'monthly_limit' | 'rate_limit' | 'enabled' | 'external_id'
  >
>;

/** Where a page of the principal list starts: after this one in `(first_seen_at, id)` order. */
export interface PrincipalPosition {
  first_seen_at: string;
  id: string;
}

/** The union of two lists of scopes, sorted; null (none recorded: every scope) absorbs any. */
export function scopeUnion(a: string[] | null, b: string[] | null): string[] | null {
  if (a === null || b === null) return null;
  return [...new Set([...a, ...b])].sort();
}

/** Principals: their records, made on first sight, in the order they were first seen. */
export abstract class PrincipalStore {
  /**
   * The principal's record, inserted as `seen` when there is none (atomic: two first calls on two
   * instances make one record), unless `max` principals exist already: then undefined (a store
   * shared by several instances may overshoot `max` by the first sights they make at once). A
   * shared store may answer from a copy kept between calls, checked when the call is counted, as a
   * key's (see KeyStore.findKeyByHash); `fresh` reads the record.
   */
  abstract ensurePrincipal(
    seen: NewPrincipalRecord,
    options?: { fresh?: boolean; max?: number },
  ): Promise<PrincipalRecord | undefined>;
  abstract findPrincipal(id: string): Promise<PrincipalRecord | undefined>;
  /** Principals in `(first_seen_at, id)` order, after `after` when given, at most `limit`. */
  abstract listPrincipals(page?: {
    after?: PrincipalPosition;
    limit?: number;
  }): Promise<PrincipalRecord[]>;
  /** How many principals there are. */
  abstract countPrincipals(): Promise<number>;
  /** Changes a principal's settings; the updated record, or undefined for an unknown id. */
  abstract updatePrincipal(
    id: string,
    changes: PrincipalChanges,
  ): Promise<PrincipalRecord | undefined>;
  /**
   * Records when the principal was last seen, through which client, and the plan its token named
   * then (never creates one; changes nothing its calls are decided on).
   */
  abstract touchPrincipal(
    id: string,
    seen: { at: string; clientId: string | null; tokenPlan: string | null },
  ): Promise<void>;
  /**
   * Adds scopes to those the principal's tokens have carried (a union, atomic; never creates a
   * record, never turns a record with none recorded into fewer than all).
   */
  abstract addPrincipalScopes(id: string, scopes: string[]): Promise<void>;
  /**
   * Deletes a principal's record and answers it as it was; undefined when there was none. Atomic:
   * of two deletions at once, one gets the record.
   */
  abstract deletePrincipal(id: string): Promise<PrincipalRecord | undefined>;
  /**
   * Writes `record` as the principal's, whether or not one is stored (its revision raised): the
   * record a merge of several made (see PrincipalsService's start-up merge).
   */
  abstract putPrincipal(record: PrincipalRecord): Promise<void>;
  /**
   * Deletes the principals last seen before `seenBefore` that are enabled and have no setting of
   * an operator (plan or limits), each checked and deleted at once; their ids, a slice at a time.
   */
  abstract purgeIdlePrincipals(seenBefore: string): AsyncIterable<string[]>;
  /**
   * Runs `work` on one instance of those sharing the store at a time: on the one that holds the
   * store's lock for it. Another that finds the lock held waits until it is released (or lapses)
   * and does not run `work`: undefined.
   */
  abstract exclusively<T>(name: string, work: () => Promise<T>): Promise<T | undefined>;
}
