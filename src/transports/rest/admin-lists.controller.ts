import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { AuditFilter } from '../../audit';
import { ApiAuditPage, auditPage, AUDIT_ACTIONS } from '../../audit';
import {
  ApiExternalIdQuery,
  ApiKeyView,
  decodeCursor,
  encodeCursor,
  isExternalId,
} from '../../subjects';
import { Scopes } from '../../kernel/auth/auth.decorators';
import { encodePosition, nextPage } from '../../kernel/http/page-cursor';
import type { KeyFilter } from '../../subjects';
import { ApiPage } from '../../kernel/openapi/page.decorator';
import { ApiErrors, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { invocationsAfter, INVOCATION_STATUSES, InvocationStatus } from '../../invocations';
import { invalidQueryValue, queryChoice, queryInts } from '../../kernel/validation/query';
import { ADMIN_PATH } from './admin-usage.controller';
import { AuditSearchPage, OperatorInvocationView, ListsReport } from '../../reports';

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
  constructor(private readonly lists: ListsReport) {}

  @Get('api-keys')
  @Scopes(['admin:read'])
  @ApiOperation({
    operationId: 'searchApiKeys',
    summary: 'Search keys',
    description:
      'Keys in creation order whose name contains `q` (any case), or whose prefix or id starts with it, of `status` and `external_id` when given. A page reads at most 5,000 keys: while the `Link` header is there, more may match.',
  })
  @ApiQuery({ name: 'q', required: false, schema: { type: 'string', maxLength: 200 } })
  @ApiQuery({ name: 'status', required: false, schema: { type: 'string', enum: KEY_STATUSES } })
  @ApiExternalIdQuery()
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
    const external_id = query.external_id as string | undefined;
    if (external_id !== undefined && !isExternalId(external_id)) {
      throw invalidQueryValue('external_id', 'expected 1 to 200 characters, a label');
    }
    const filter: KeyFilter = { text: q?.trim().toLowerCase() || undefined, status, external_id };
    const found = await this.lists.keys(filter, { after, limit: limit as number });
    nextPage(res, found.next && encodeCursor(found.next), {
      path: `/${ADMIN_PATH}/api-keys`,
      limit: limit as number,
      filters: { q, status, external_id },
    });
    return found.matches;
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
  @ApiAuditPage(AuditSearchPage, AUDIT_PAGE)
  @ApiErrors(400, 403)
  async searchAudit(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<AuditSearchPage> {
    const { limit, before } = auditPage(query, AUDIT_PAGE);
    const filter: AuditFilter = {
      action: queryChoice(query, 'action', AUDIT_ACTIONS),
      actor: queryText(query, 'actor', 40),
    };
    if (filter.actor !== undefined && !ACTOR.test(filter.actor)) {
      throw invalidQueryValue('actor', 'expected a key id, a principal id or cli');
    }
    const found = await this.lists.audit(filter, { before, limit });
    const link = { path: `/${ADMIN_PATH}/audit`, limit, filters: { ...filter } };
    return { ...found, next_cursor: nextPage(res, found.next_before?.toString(), link) };
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
    const found = await this.lists.invocationsOfAll(status, { after, limit: page });
    const next = found.next && encodePosition(found.next.created_at, found.next.id);
    nextPage(res, next, { path: `/${ADMIN_PATH}/invocations`, limit: page, filters: { status } });
    return found.matches;
  }
}
