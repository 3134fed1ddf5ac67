/**
 * A source made through the API, as kept: its fields without its secrets, and its secrets (the
 * `auth` credentials, the URLs' query strings) in `sealed`, sealed with SECRETS_KEY when set
 * (source-secrets.ts). CONFIG_FILE's sources are never stored.
 */
export interface SourceRecord {
  name: string;
  /** The fields as `POST /api/v1/sources` took them, less the secrets. */
  fields: Record<string, unknown>;
  /** The secrets as JSON, sealed (or as they are without SECRETS_KEY); null when there are none. */
  sealed: string | null;
  created_at: string;
  updated_at: string;
}

/** A record as read back: with the store's revision of its last write (a later write, a larger one). */
export interface StoredSource extends SourceRecord {
  version: number;
}

/** What a create found: the version of the record stored, or why none was. */
export type CreateOutcome = number | 'taken' | 'full';

/**
 * The sources made through the API, shared by every instance on the store. Every write moves the
 * store's revision on, so that an instance learns of another's change by reading one number.
 */
export abstract class SourceStore {
  /** Stores a new source unless its name is taken or `max` are stored already: its version. */
  abstract create(record: SourceRecord, max: number): Promise<CreateOutcome>;
  /** Replaces a stored source's record: its new version, undefined when there is none. */
  abstract update(record: SourceRecord): Promise<number | undefined>;
  /** Forgets a source: false when there was none. */
  abstract remove(name: string): Promise<boolean>;
  /** Every stored source, by name. */
  abstract list(): Promise<StoredSource[]>;
  /** The revision of the last write (0 before any): it changes with every write of any instance. */
  abstract revision(): Promise<number>;
}
