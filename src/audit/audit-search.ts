import { Inject, Injectable } from '@nestjs/common';
import { type Found, SEARCH_BUDGET_TOKEN, searchPage } from '../kernel/common/bounded-search';
import type { AuditEntry } from './audit.store';
import { AuditService } from './audit.service';

export interface AuditFilter {
  action?: string;
  /** A key id, a principal id, or `cli`. */
  actor?: string;
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
 * The audit trail by action and actor, newest first (the trail's own order), a batch at a time,
 * within SEARCH_BUDGET entries a page.
 */
@Injectable()
export class AuditSearch {
  constructor(
    private readonly audit: AuditService,
    @Inject(SEARCH_BUDGET_TOKEN) private readonly budget: number,
  ) {}

  search(
    filter: AuditFilter,
    page: { before?: number; limit: number },
  ): Promise<Found<AuditEntry, number>> {
    return searchPage<AuditEntry, number>(
      {
        read: (before, limit) => this.audit.list(limit, before),
        positionOf: (entry) => entry.id,
      },
      (entry) => entryMatches(entry, filter),
      { after: page.before, limit: page.limit },
      this.budget,
    );
  }
}
