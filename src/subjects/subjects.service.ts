import { Inject, Injectable } from '@nestjs/common';
import { SEARCH_BUDGET_TOKEN, searchPage } from '../kernel/common/bounded-search';
import type { AuditActor } from '../audit';
import { INSUFFICIENT_PERMISSIONS } from '../kernel/auth/auth.errors';
import { ToolCatalog } from '../kernel/auth/scopes';
import { ApiError } from '../kernel/errors/api-error';
import { nextPage } from '../kernel/http/page-cursor';
import type { ReplyControl } from '../kernel/http/plumbing';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { invalidQueryValue, queryInts } from '../kernel/validation/query';
import { historyDays, QuotaService, usageView, UsageView } from '../limits';
import type { Caller } from './caller';
import { escalates, type Grant, mayManage } from './escalation';
import { isExternalId } from './key-request';

/** The most records a page of a subject list holds. */
export const MAX_SUBJECT_PAGE = 1000;

/** What a subject holds, as the no-escalation rule and its usage read it. */
export interface Holdings extends Required<Grant> {
  id: string;
}

/**
 * What differs between the two kinds of subject, keys and OAuth principals, for what the service
 * does to either alike (SubjectsService): where their records are, how a page of them is named,
 * how a change is checked and written (and audited), and how one is removed.
 */
export interface SubjectKind<R extends { id: string }, C extends object, P> {
  /** The 404's text. */
  readonly notFound: string;
  /** The list's path, for the `Link` of the next page. */
  readonly path: string;
  find(id: string): Promise<R | undefined>;
  /** Records after the position (undefined: from the first), in the list's order. */
  list(after: P | undefined, limit: number): Promise<R[]>;
  /** Where a record stands in the list's order. */
  position(record: R): P;
  /** The opaque cursor of the page after `position`; `parse` reads one back (undefined: not ours). */
  cursor(position: P): string;
  parse(cursor: unknown): P | undefined;
  /** What the subject holds now: its scopes (every one while none is recorded), plan, limits. */
  holdings(record: R): Holdings;
  /** 409 when the record cannot be changed as it stands (a revoked key); else nothing. */
  refuseChange?(record: R): void;
  /** The changes checked (400) and made whole (a scope template resolved) before any rule. */
  checked(changes: C): C;
  /** Writes the changes (only what differs) and audits them; undefined when the record is gone. */
  update(record: R, changes: C, actor: AuditActor): Promise<R | undefined>;
  /** 409 when the record cannot be removed as it stands (a disabled principal); else nothing. */
  refuseRemoval?(record: R): void;
  /** Removes it (a key revoked, a principal deleted) and audits it; false when it was gone. */
  remove(record: R, actor: AuditActor): Promise<boolean>;
}

/**
 * One implementation of what keys and principals share, for either kind: a page of them, one by
 * id (404), its usage, a change under the no-escalation rule (403) and its removal. What differs,
 * how each authenticates and where it comes from, is each kind's (KeySubjects, PrincipalSubjects).
 */
@Injectable()
export class SubjectsService {
  constructor(
    private readonly quota: QuotaService,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly catalog: ToolCatalog,
    @Inject(SEARCH_BUDGET_TOKEN) private readonly budget: number,
  ) {}

  /**
   * A page of the kind's records, `Link` to the next one set on `res`; 400 for a foreign cursor or
   * an `external_id` that is not one. With `external_id`, only the records of exactly that one: a
   * bounded search (SEARCH_BUDGET records read a page), the same on both stores, so a page may
   * hold fewer than `limit`, even none, while its `Link` says where the next one starts.
   */
  async page<R extends { id: string; external_id?: string | null }, C extends object, P>(
    kind: SubjectKind<R, C, P>,
    query: Record<string, unknown>,
    res: ReplyControl,
  ): Promise<R[]> {
    const { limit } = queryInts(query, {
      limit: { min: 1, max: MAX_SUBJECT_PAGE, default: MAX_SUBJECT_PAGE },
    });
    let after: P | undefined;
    if (query.cursor !== undefined) {
      after = kind.parse(query.cursor);
      if (!after) throw invalidQueryValue('cursor', 'this cursor was not issued by the service');
    }
    const externalId = query.external_id;
    if (externalId !== undefined && !isExternalId(externalId)) {
      throw invalidQueryValue('external_id', 'expected 1 to 200 characters, a label');
    }
    const page = limit as number;
    if (externalId !== undefined) {
      const found = await searchPage(
        { read: (from, count) => kind.list(from, count), positionOf: (r) => kind.position(r) },
        (record) => record.external_id === externalId,
        { after, limit: page },
        this.budget,
      );
      const link = { path: kind.path, limit: page, filters: { external_id: externalId } };
      nextPage(res, found.next && kind.cursor(found.next), link);
      return found.matches;
    }
    const records = await kind.list(after, page + 1);
    const next = records.length > page ? kind.cursor(kind.position(records[page - 1])) : null;
    nextPage(res, next, { path: kind.path, limit: page });
    return records.slice(0, page);
  }

  /** One record of the kind: 404 when there is none. */
  async find<R extends { id: string }, C extends object, P>(
    kind: SubjectKind<R, C, P>,
    id: string,
  ): Promise<R> {
    const record = await kind.find(id);
    if (!record) throw new ApiError(404, kind.notFound);
    return record;
  }

  /** Its usage today against its limits, and `days` UTC days of history (the query's). */
  async usage<R extends { id: string }, C extends object, P>(
    kind: SubjectKind<R, C, P>,
    id: string,
    query: Record<string, unknown>,
  ): Promise<UsageView> {
    const held = kind.holdings(await this.find(kind, id));
    return usageView(this.quota, held, historyDays(query));
  }

  /**
   * Changes a record, in this order: 404; 403 unless the caller holds all it holds; 409 when it
   * cannot be changed; 400 for a change that is not valid; 403 for one that grants more than the
   * caller holds. Only the fields sent count.
   */
  async change<R extends { id: string }, C extends object, P>(
    kind: SubjectKind<R, C, P>,
    caller: Caller,
    id: string,
    input: C,
    actor: AuditActor,
  ): Promise<R> {
    const target = await this.changeable(kind, caller, id);
    const sent = Object.fromEntries(
      Object.entries(input).filter(([, value]) => value !== undefined),
    ) as C;
    const changes = kind.checked(sent);
    const { plan, ...limits } = changes as Omit<Grant, 'plan'> & { plan?: string | null };
    this.checkGrant(caller, { ...limits, plan: plan ?? undefined }, kind.holdings(target).plan);
    const record = await kind.update(target, changes, actor);
    if (!record) throw new ApiError(404, kind.notFound);
    return record;
  }

  /** Removes a record: 404; 403 unless the caller holds all it holds; 409 when it may not go. */
  async remove<R extends { id: string }, C extends object, P>(
    kind: SubjectKind<R, C, P>,
    caller: Caller,
    id: string,
    actor: AuditActor,
  ): Promise<R> {
    const target = await this.manageable(kind, caller, id);
    kind.refuseRemoval?.(target);
    if (!(await kind.remove(target, actor))) throw new ApiError(404, kind.notFound);
    return target;
  }

  /**
   * A record the caller may change (a key it may rotate): 404; 403 unless the caller holds all it
   * holds; 409 when it cannot be changed as it stands.
   */
  async changeable<R extends { id: string }, C extends object, P>(
    kind: SubjectKind<R, C, P>,
    caller: Caller,
    id: string,
  ): Promise<R> {
    const target = await this.manageable(kind, caller, id);
    kind.refuseChange?.(target);
    return target;
  }

  /**
   * Whether a caller may grant this much (create a key with it): 403 for a scope it lacks, or a
   * plan, a limit or a price more generous than its own.
   */
  checkGrant(caller: Caller, grant: Grant, basePlan?: string): void {
    if (escalates(caller, grant, this.settings, this.costs(), basePlan)) {
      throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    }
  }

  /** The record, when the caller may act on it: it holds nothing the caller lacks (else 403). */
  private async manageable<R extends { id: string }, C extends object, P>(
    kind: SubjectKind<R, C, P>,
    caller: Caller,
    id: string,
  ): Promise<R> {
    const target = await this.find(kind, id);
    if (!mayManage(caller, kind.holdings(target), this.settings, this.costs())) {
      throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    }
    return target;
  }

  private costs() {
    return this.catalog.costs();
  }
}
