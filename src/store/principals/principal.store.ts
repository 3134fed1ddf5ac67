/**
 * A principal: whom an OAuth access token speaks for (an issuer's subject through one client),
 * known from its first token on. It has what a key has for limits (a plan, its own limits, an on/off
 * switch) and none of a key's secrets: its tokens are the issuer's.
 */
export interface PrincipalRecord {
  /** `prn_` and 32 hex digits of a hash of issuer, client and subject (principalId). */
  id: string;
  issuer: string;
  subject: string;
  /** The client the tokens were issued to (`client_id`, else `azp`); null when they name none. */
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
  first_seen_at: string;
  last_seen_at: string;
  /** A shared store's count of the record's changes (Redis), as a key record's (see KeyStore). */
  revision?: number;
}

/** A principal as first seen: no plan or limits of its own, enabled. */
export type NewPrincipalRecord = Pick<
  PrincipalRecord,
  'id' | 'issuer' | 'subject' | 'client_id' | 'first_seen_at' | 'last_seen_at'
>;

/** What an operator may change of a principal. */
export type PrincipalChanges = Partial<
  Pick<PrincipalRecord, 'plan' | 'daily_limit' | 'monthly_limit' | 'rate_limit' | 'enabled'>
>;

/** Where a page of the principal list starts: after this one in `(first_seen_at, id)` order. */
export interface PrincipalPosition {
  first_seen_at: string;
  id: string;
}

/** Principals: their records, made on first sight, in the order they were first seen. */
export abstract class PrincipalStore {
  /**
   * The principal's record, inserted as `seen` when there is none (atomic: two first calls on two
   * instances make one record). A shared store may answer from a copy kept between calls, checked
   * when the call is counted, as a key's (see KeyStore.findKeyByHash); `fresh` reads the record.
   */
  abstract ensurePrincipal(
    seen: NewPrincipalRecord,
    options?: { fresh?: boolean },
  ): Promise<PrincipalRecord>;
  abstract findPrincipal(id: string): Promise<PrincipalRecord | undefined>;
  /** Principals in `(first_seen_at, id)` order, after `after` when given, at most `limit`. */
  abstract listPrincipals(page?: {
    after?: PrincipalPosition;
    limit?: number;
  }): Promise<PrincipalRecord[]>;
  /** Changes a principal's settings; the updated record, or undefined for an unknown id. */
  abstract updatePrincipal(
    id: string,
    changes: PrincipalChanges,
  ): Promise<PrincipalRecord | undefined>;
  /**
   * Records when the principal was last seen and the plan its token named then (never creates
   * one; changes nothing its calls are decided on).
   */
  abstract touchPrincipal(id: string, at: string, tokenPlan: string | null): Promise<void>;
}
