import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { keyStatus } from '../auth/api-key.view';
import type { ApiKeyView } from '../auth/api-keys.dto';
import type { AuditEntry } from '../store/audit/audit.store';
import { type ApiKeyRecord, KeyPosition, KeyStore } from '../store/keys/key.store';

/**
 * Records a search reads at most for one page. A filter the store cannot answer from an index is
 * applied to the records as they are read, the same way on both stores; past this many a page
 * ends with what it found and where to go on, so no request reads the whole store.
 */
export const SEARCH_BUDGET = 5_000;
/** The provider of the budget (tests make it small). */
export const SEARCH_BUDGET_TOKEN = Symbol('SEARCH_BUDGET');
/** Records read from the store at a time. */
const BATCH = 500;

export interface KeyFilter {
  /** Lower case: in the name, or the start of the prefix or id. */
  text?: string;
  status?: ApiKeyView['status'];
}

export interface AuditFilter {
  action?: string;
  /** A key id, a principal id, or `cli`. */
  actor?: string;
}

/** A page of a search: what matched, and where the next page starts while more may match. */
export interface Found<T, P> {
  matches: T[];
  next?: P;
}

function keyMatches(record: ApiKeyRecord, filter: KeyFilter, now: Date): boolean {
  if (filter.status && keyStatus(record, now) !== filter.status) return false;
  const text = filter.text;
  if (!text) return true;
  return (
    record.name.toLowerCase().includes(text) ||
    record.prefix.toLowerCase().startsWith(text) ||
    record.id.startsWith(text)
  );
}

function entryMatches(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.action && entry.action !== filter.action) return false;
  const actor = filter.actor;
  if (!actor) return true;
  if (actor === 'cli') {
    return entry.actor_key_id === null && entry.actor_principal_id === null
      ? entry.details.source === 'cli'
      : false;
  }
  return entry.actor_key_id === actor || entry.actor_principal_id === actor;
}

/**
 * Searches of the lists an operator pages through: keys by name, prefix, id and status; the audit
 * trail by action and actor. Each reads the list in its own order, a batch at a time, within
 * SEARCH_BUDGET records a page.
 */
@Injectable()
export class AdminSearch {
  private readonly batch: number;

  constructor(
    private readonly keys: KeyStore,
    private readonly audit: AuditService,
    @Inject(SEARCH_BUDGET_TOKEN) private readonly budget: number,
  ) {
    this.batch = Math.min(BATCH, budget);
  }

  async searchKeys(
    filter: KeyFilter,
    page: { after?: KeyPosition; limit: number },
    now: Date,
  ): Promise<Found<ApiKeyRecord, KeyPosition>> {
    const matches: ApiKeyRecord[] = [];
    let after = page.after;
    for (let read = 0; ;) {
      const batch = await this.keys.listKeys({ after, limit: this.batch });
      for (const record of batch) {
        if (keyMatches(record, filter, now)) matches.push(record);
        // One more than the page: the page is full and more match.
        if (matches.length > page.limit) {
          return { matches: matches.slice(0, page.limit), next: matches[page.limit - 1] };
        }
        after = record;
        if (++read === this.budget) return { matches, next: after };
      }
      if (batch.length < this.batch) return { matches };
    }
  }

  async searchAudit(
    filter: AuditFilter,
    page: { before?: number; limit: number },
  ): Promise<Found<AuditEntry, number>> {
    const matches: AuditEntry[] = [];
    let before = page.before;
    for (let read = 0; ;) {
      const batch = await this.audit.list(this.batch, before);
      for (const entry of batch) {
        if (entryMatches(entry, filter)) matches.push(entry);
        if (matches.length > page.limit) {
          return { matches: matches.slice(0, page.limit), next: matches[page.limit - 1].id };
        }
        before = entry.id;
        if (++read === this.budget) return { matches, next: before };
      }
      if (batch.length < this.batch) return { matches };
    }
  }
}
