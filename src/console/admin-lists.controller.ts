import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AUDIT_ACTIONS } from '../audit/audit.service';
import { toView } from '../auth/api-key.view';
import { ApiKeysService } from '../auth/api-keys.service';
import { ApiKeyView } from '../auth/api-keys.dto';
import { Scopes } from '../auth/auth.decorators';
import { decodeCursor, encodeCursor, encodePosition, nextLink } from '../auth/key-cursor';
import { ApiPage } from '../auth/page.decorator';
import { ApiErrors, KEYED_ERRORS } from '../docs/api-errors';
import type { ReplyControl } from '../http/plumbing';
import { Clock } from '../limits/clock';
import { invocationsAfter, invocationView } from '../invocation/runtime/invocation.view';
import {
  INVOCATION_STATUSES,
  InvocationStatus,
  InvocationStore,
} from '../store/invocations/invocation.store';
import { invalidQueryValue, queryChoice, queryInts } from '../validation/query';
import { AdminSearch, AuditFilter, KeyFilter } from './admin-search';
import { ADMIN_PATH } from './admin-usage.controller';
import { AuditSearchPage, OperatorInvocationView } from './admin.dto';

const KEY_STATUSES: ApiKeyView['status'][] = ['active', 'disabled', 'expired', 'revoked'];
const KEY_PAGE = 100;
const AUDIT_PAGE = 500;
const INVOCATION_PAGE = 100;
/** A key id, a principal id, or the CLI. */
const ACTOR = /^(key_[0-9a-f]{16}|prn_[0-9a-f]{32}|cli)$/;

/** A text query parameter of at most `max` characters, else a 400 at `["query", name]`. */
function queryText(query: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length < 1 || value.length > max) {
    throw invalidQueryValue(name, `expected 1 to ${max} characters`);
  }
  return value;
}

/**
 * The lists an operator searches (`admin:read`): keys by name, prefix, id and status; the audit
 * trail by action and actor; the long-running calls of every caller. A search reads a bounded
 * number of records a page (SEARCH_BUDGET), so a page may hold fewer matches than asked, even
 * none, and still say where the next one starts.
 */
@ApiTags('admin')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller(ADMIN_PATH)
export class AdminListsController {
  constructor(
    private readonly search: AdminSearch,
    private readonly keys: ApiKeysService,
    private readonly invocations: InvocationStore,
    private readonly clock: Clock,
  ) {}

  @Get('api-keys')
  @Scopes(['admin:read'])
  @ApiOperation({
    operationId: 'searchApiKeys',
    summary: 'Search keys',
    description:
      'Keys in creation order whose name contains `q` (any case), or whose prefix or id starts with it, of `status` when given. A page reads at most 5,000 keys: while the `Link` header is there, more may match.',
  })
  @ApiQuery({ name: 'q', required: false, schema: { type: 'string', maxLength: 200 } })
  @ApiQuery({ name: 'status', required: false, schema: { type: 'string', enum: KEY_STATUSES } })
  @ApiPage(ApiKeyView, KEY_PAGE)
  @ApiErrors(400, 403)
  async searchKeys(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<ApiKeyView[]> {
    const { limit } = queryInts(query, { limit: { min: 1, max: KEY_PAGE, default: 50 } });
    const q = queryText(query, 'q', 200);
    const status = queryChoice(query, 'status', KEY_STATUSES);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (after === null) {
      throw invalidQueryValue('cursor', 'this cursor was not issued by the service');
    }
    const filter: KeyFilter = { text: q?.trim().toLowerCase() || undefined, status };
    const now = this.keys.now();
    const found = await this.search.searchKeys(filter, { after, limit: limit as number }, now);
    if (found.next) {
      res.header(
        'Link',
        nextLink(`/${ADMIN_PATH}/api-keys`, limit as number, encodeCursor(found.next), {
          q,
          status,
        }),
      );
    }
    return found.matches.map((record) => toView(record, now));
  }

  @Get('audit')
  @Scopes(['admin:read'])
  @ApiOperation({
    operationId: 'searchAuditEntries',
    summary: 'Search the audit trail',
    description:
      'Entries newest first, of `action` and by `actor` when given (a key id, a principal id, or `cli`). A page reads at most 5,000 entries: while `next_before` is not null, more may match.',
  })
  @ApiQuery({
    name: 'action',
    required: false,
    schema: { type: 'string', enum: [...AUDIT_ACTIONS] },
  })
  @ApiQuery({
    name: 'actor',
    required: false,
    schema: { type: 'string', pattern: ACTOR.source },
    description: 'A key id, a principal id, or `cli`.',
  })
  @ApiQuery({ name: 'before', required: false, schema: { type: 'integer', minimum: 1 } })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: AUDIT_PAGE, default: 100 },
  })
  @ApiOkResponse({ type: AuditSearchPage })
  @ApiErrors(400, 403)
  async searchAudit(@Query() query: Record<string, unknown>): Promise<AuditSearchPage> {
    const { limit, before } = queryInts(query, {
      limit: { min: 1, max: AUDIT_PAGE, default: 100 },
      before: { min: 1, max: Number.MAX_SAFE_INTEGER },
    });
    const filter: AuditFilter = {
      action: queryChoice(query, 'action', AUDIT_ACTIONS),
      actor: queryText(query, 'actor', 40),
    };
    if (filter.actor !== undefined && !ACTOR.test(filter.actor)) {
      throw invalidQueryValue('actor', 'expected a key id, a principal id or cli');
    }
    const found = await this.search.searchAudit(filter, { before, limit: limit as number });
    return { entries: found.matches, next_before: found.next ?? null };
  }

  @Get('invocations')
  @Scopes(['admin:read'])
  @ApiOperation({
    operationId: 'listAllInvocations',
    summary: "Every caller's long-running calls",
    description: 'Newest first, of `status` when given; each names the key or principal it is of.',
  })
  @ApiQuery({
    name: 'status',
    required: false,
    schema: { type: 'string', enum: [...INVOCATION_STATUSES] },
  })
  @ApiPage(OperatorInvocationView, INVOCATION_PAGE)
  @ApiErrors(400, 403)
  async invocationsOfAll(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<OperatorInvocationView[]> {
    const { limit } = queryInts(query, {
      limit: { min: 1, max: INVOCATION_PAGE, default: INVOCATION_PAGE },
    });
    const status = queryChoice<InvocationStatus>(query, 'status', INVOCATION_STATUSES);
    const after = invocationsAfter(query.cursor);
    const page = limit as number;
    const records = await this.invocations.listAll({ status, after, limit: page + 1 });
    if (records.length > page) {
      const last = records[page - 1];
      res.header(
        'Link',
        nextLink(`/${ADMIN_PATH}/invocations`, page, encodePosition(last.created_at, last.id), {
          status,
        }),
      );
    }
    // A view is kept 24 hours after its call ended; the store forgets it by itself, later.
    const now = this.clock.now().getTime();
    return records
      .slice(0, page)
      .filter((record) => record.expires_ms == null || record.expires_ms > now)
      .map((record) => ({ ...invocationView(record), caller_id: record.caller_id }));
  }
}
