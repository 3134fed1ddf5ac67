import { Injectable } from '@nestjs/common';
import { Clock } from '../kernel/common/clock';
import { invalidQueryValue, queryInts } from '../kernel/validation/query';
import type { LedgerEntry } from './ledger-entry';
import { LedgerQuery, LedgerStore } from './ledger.store';

/** A query's range reaches back this far unless `from` says otherwise. */
const DEFAULT_RANGE_MS = 30 * 86_400_000;
const SUBJECT = /^(key:key_[0-9a-f]{16}|principal:prn_[0-9a-f]{32})$/;
const ENTRY_ID = /^le_[0-9a-f]{32}$/;
/** An RFC 3339 instant: a date, a time, and a zone (Z or an offset). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A page of the ledger. */
export interface LedgerPage {
  entries: LedgerEntry[];
  /** The `cursor` of the next page; null on the last. */
  next_cursor: string | null;
}

/**
 * A query from its parameters (the REST route's, and the CLI's before it opens the store): `from`
 * (inclusive) and `to` (exclusive) RFC 3339 instants, by default the last 30 days; `subject`
 * (`key:<id>` or `principal:<id>`), `external_id`, `run`, `tool`, `cursor`. A 400 names what is
 * wrong.
 */
export function ledgerQuery(params: Record<string, unknown>, nowMs: number): LedgerQuery {
  const text = (name: string): string | undefined => {
    const value = params[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !value.length || value.length > 200) {
      throw invalidQueryValue(name, 'a single value of 1 to 200 characters');
    }
    return value;
  };
  const instant = (name: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const ms = Date.parse(value);
    if (!INSTANT.test(value) || Number.isNaN(ms)) {
      throw invalidQueryValue(name, 'an RFC 3339 instant, like 2026-11-01T00:00:00Z');
    }
    return ms;
  };
  const toMs = instant('to') ?? nowMs + 1;
  const fromMs = instant('from') ?? toMs - DEFAULT_RANGE_MS;
  if (fromMs > toMs) throw invalidQueryValue('from', 'not after `to`');
  const subject = text('subject');
  if (subject !== undefined && !SUBJECT.test(subject)) {
    throw invalidQueryValue('subject', 'key:<key id> or principal:<principal id>');
  }
  const cursor = text('cursor');
  if (cursor !== undefined && !ENTRY_ID.test(cursor)) {
    throw invalidQueryValue('cursor', 'the next_cursor of a page');
  }
  return {
    fromMs,
    toMs,
    subjectId: subject?.slice(subject.indexOf(':') + 1),
    externalId: text('external_id'),
    runId: text('run'),
    tool: text('tool'),
    after: cursor,
  };
}

/** Reading the ledger (docs/runs-and-ledger.md): queries checked, pages, whole ranges. */
@Injectable()
export class LedgerService {
  constructor(
    private readonly store: LedgerStore,
    private readonly clock: Clock,
  ) {}

  /** A query from its parameters, now (ledgerQuery). */
  query(params: Record<string, unknown>): LedgerQuery {
    return ledgerQuery(params, this.clock.nowMs());
  }

  /** `limit` (1 to 1000, default 100) entries of the query, oldest first. */
  async page(params: Record<string, unknown>): Promise<LedgerPage> {
    const query = this.query(params);
    const { limit } = queryInts(params, { limit: { min: 1, max: 1000, default: 100 } });
    const entries = await this.store.page(query, (limit as number) + 1);
    const page = entries.slice(0, limit);
    return {
      entries: page,
      next_cursor: entries.length > page.length ? page[page.length - 1].id : null,
    };
  }

  /** Every entry of the query, oldest first, a page of the store at a time. */
  stream(query: LedgerQuery): AsyncGenerator<LedgerEntry> {
    return this.store.stream(query);
  }
}
