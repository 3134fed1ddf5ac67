/** One recorded change: who did what to which key or setting. Never a secret. */
export interface AuditEntry {
  /** Increasing: a later entry has a larger id. */
  id: number;
  at: string;
  actor_key_id: string | null;
  /** The OAuth principal that acted (null for keys, the CLI and the service). */
  actor_principal_id: string | null;
  action: string;
  target: string;
  request_id: string | null;
  details: Record<string, unknown>;
}

/** The audit trail: entries newest first, kept a while. */
export abstract class AuditStore {
  /** Records an entry (its id is given here) and forgets entries older than `keepSince`. */
  abstract appendAudit(entry: Omit<AuditEntry, 'id'>, keepSince: string): Promise<AuditEntry>;
  /** Entries newest first, older than entry `before` when given, none older than `since`. */
  abstract listAudit(query: {
    before?: number;
    limit: number;
    since: string;
  }): Promise<AuditEntry[]>;
}
