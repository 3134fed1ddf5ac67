import { Injectable } from '@nestjs/common';
import { AuditFilter, AuditSearch } from '../audit';
import { toView, KeyFilter, KeySearch } from '../subjects';
import type { ApiKeyView, KeyPosition } from '../subjects';
import {
  invocationView,
  InvocationPosition,
  InvocationStatus,
  InvocationStore,
} from '../invocations';
import { Clock } from '../kernel/common/clock';
import type { Found } from '../kernel/common/bounded-search';
import type { AuditSearchPage, OperatorInvocationView } from './reports.dto';

/**
 * The lists an operator pages through: keys by name, prefix, id and status; the audit trail by
 * action and actor; the long-running calls of every caller. A search reads a bounded number of
 * records a page (SEARCH_BUDGET), so a page may hold fewer matches than asked, even none, and
 * still say where the next one starts.
 */
@Injectable()
export class ListsReport {
  constructor(
    private readonly keySearch: KeySearch,
    private readonly auditSearch: AuditSearch,
    private readonly invocations: InvocationStore,
    private readonly clock: Clock,
  ) {}

  async keys(
    filter: KeyFilter,
    page: { after?: KeyPosition; limit: number },
  ): Promise<Found<ApiKeyView, KeyPosition>> {
    const now = this.clock.now();
    const found = await this.keySearch.search(filter, page, now);
    return { matches: found.matches.map((record) => toView(record, now)), next: found.next };
  }

  async audit(
    filter: AuditFilter,
    page: { before?: number; limit: number },
  ): Promise<Omit<AuditSearchPage, 'next_cursor'>> {
    const found = await this.auditSearch.search(filter, page);
    return { entries: found.matches, next_before: found.next ?? null };
  }

  /** Every caller's long-running calls, newest first, of `status` when given. */
  async invocationsOfAll(
    status: InvocationStatus | undefined,
    page: { after?: InvocationPosition; limit: number },
  ): Promise<Found<OperatorInvocationView, InvocationPosition>> {
    const records = await this.invocations.listAll({ status, ...page, limit: page.limit + 1 });
    const last = records.length > page.limit ? records[page.limit - 1] : undefined;
    // A view is kept 24 hours after its call ended; the store forgets it by itself, later.
    const now = this.clock.now().getTime();
    const matches = records
      .slice(0, page.limit)
      .filter((record) => record.expires_ms == null || record.expires_ms > now)
      .map((record) => ({ ...invocationView(record), caller_id: record.caller_id }));
    return { matches, next: last && { created_at: last.created_at, id: last.id } };
  }
}
