import { Inject, Injectable } from '@nestjs/common';
import { type Found, SEARCH_BUDGET_TOKEN, searchPage } from '../kernel/common/bounded-search';
import { type ApiKeyRecord, KeyPosition, KeyStore } from './key.store';
import { keyStatus } from './api-key.view';
import type { ApiKeyView } from './api-keys.dto';

export interface KeyFilter {
  /** Lower case: in the name, or the start of the prefix or id. */
  text?: string;
  status?: ApiKeyView['status'];
  /** Exactly this external id. */
  external_id?: string;
}

function keyMatches(record: ApiKeyRecord, filter: KeyFilter, now: Date): boolean {
  if (filter.status && keyStatus(record, now) !== filter.status) return false;
  if (filter.external_id !== undefined && record.external_id !== filter.external_id) return false;
  const text = filter.text;
  if (!text) return true;
  return (
    record.name.toLowerCase().includes(text) ||
    record.prefix.toLowerCase().startsWith(text) ||
    record.id.startsWith(text)
  );
}

/**
 * Keys by name, prefix, id, status and external id, in creation order (the keys' list), a batch at a time,
 * within SEARCH_BUDGET records a page.
 */
@Injectable()
export class KeySearch {
  constructor(
    private readonly keys: KeyStore,
    @Inject(SEARCH_BUDGET_TOKEN) private readonly budget: number,
  ) {}

  search(
    filter: KeyFilter,
    page: { after?: KeyPosition; limit: number },
    now: Date,
  ): Promise<Found<ApiKeyRecord, KeyPosition>> {
    return searchPage<ApiKeyRecord, KeyPosition>(
      {
        read: (after, limit) => this.keys.listKeys({ after, limit }),
        positionOf: (record) => record,
      },
      (record) => keyMatches(record, filter, now),
      page,
      this.budget,
    );
  }
}
