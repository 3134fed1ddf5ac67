import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Query,
  Res,
} from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../../audit';
import { Scopes, INSUFFICIENT_PERMISSIONS, ToolCatalog } from '../../auth';
import { CurrentCaller, escalates, mayManage } from '../../subjects';
import type { Caller, PrincipalChanges, PrincipalRecord } from '../../subjects';
import { decodePosition, encodePosition, nextLink } from '../../kernel/http/page-cursor';
import { ApiPage } from '../../kernel/openapi/page.decorator';
import { ApiUsage, historyDays, usageView, UsageView, QuotaService } from '../../limits';
import { ApiErrors, BODY_ERRORS, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { ApiError, ValidationFailed } from '../../kernel/errors/api-error';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { planNamed, Settings, SETTINGS } from '../../kernel/settings/settings';
import { invalidQueryValue, queryInts } from '../../kernel/validation/query';
import {
  PrincipalsService,
  DeletedPrincipal,
  PrincipalView,
  UpdatePrincipalInput,
} from '../../oauth';

export const PRINCIPALS_PATH = '/api/v1/auth/principals';
const MAX_PAGE = 1000;
const PRINCIPAL_ID = /^prn_[0-9a-f]{32}$/;
const PRINCIPAL_NOT_FOUND = 'Principal not found';
const PRINCIPAL_DISABLED =
  'Principal is disabled: its record is what refuses its tokens. Enable it before deleting it.';

function toView(
  record: PrincipalRecord,
  planOf: (record: PrincipalRecord) => string,
): PrincipalView {
  return {
    id: record.id,
    issuer: record.issuer,
    subject: record.subject,
    client_id: record.client_id,
    plan: planOf(record),
    operator_plan: record.plan,
    daily_limit: record.daily_limit,
    monthly_limit: record.monthly_limit,
    rate_limit: record.rate_limit,
    enabled: record.enabled,
    scopes: record.scopes,
    first_seen_at: record.first_seen_at,
    last_seen_at: record.last_seen_at,
  };
}

/**
 * The OAuth principals, for operators (docs/oauth.md): every principal a token has spoken for,
 * its usage, and its settings (plan, limits, enabled). Changing or deleting one follows the
 * no-escalation rule of keys: nothing more generous than the caller's own, and only principals
 * whose scopes (those their tokens carried), limits and prices are within the caller's.
 */
@ApiTags('auth')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller(PRINCIPALS_PATH.slice(1))
export class PrincipalsController {
  constructor(
    private readonly principals: PrincipalsService,
    private readonly quota: QuotaService,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly catalog: ToolCatalog,
  ) {}

  /** Principals in the order they were first seen, a page at a time (`Link` to the next). */
  @Get()
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listPrincipals', summary: 'List OAuth principals' })
  @ApiPage(PrincipalView, MAX_PAGE)
  @ApiErrors(400, 403)
  async list(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<PrincipalView[]> {
    const { limit } = queryInts(query, { limit: { min: 1, max: MAX_PAGE, default: MAX_PAGE } });
    let after: { first_seen_at: string; id: string } | undefined;
    if (query.cursor !== undefined) {
      const position = decodePosition(query.cursor, PRINCIPAL_ID);
      if (!position) throw invalidQueryValue('cursor', 'this cursor was not issued by the service');
      after = { first_seen_at: position[0], id: position[1] };
    }
    const page = limit as number;
    const records = await this.principals.list({ after, limit: page + 1 });
    if (records.length > page) {
      const last = records[page - 1];
      res.header(
        'Link',
        nextLink(PRINCIPALS_PATH, page, encodePosition(last.first_seen_at, last.id)),
      );
    }
    return records.slice(0, page).map((record) => toView(record, this.planOf));
  }

  @Get(':id')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getPrincipal', summary: 'One OAuth principal' })
  @ApiOkResponse({ type: PrincipalView })
  @ApiErrors(403, 404)
  async get(@Param('id') id: string): Promise<PrincipalView> {
    return toView(await this.found(id), this.planOf);
  }

  /** A principal's usage: today against its limit, and `days` UTC days of history. */
  @Get(':id/usage')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getPrincipalUsage', summary: "A principal's usage and history" })
  @ApiUsage()
  @ApiErrors(400, 403, 404)
  async usage(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<UsageView> {
    const record = await this.found(id);
    return usageView(this.quota, this.limited(record), historyDays(query));
  }

  /**
   * Changes a principal: plan, limits, enabled. Effective from its next call on any instance; a
   * disabled principal's tokens get 401 at once.
   */
  @Patch(':id')
  @Scopes(['admin:write'])
  @ApiOperation({ operationId: 'updatePrincipal', summary: 'Change an OAuth principal' })
  @ApiOkResponse({ type: PrincipalView })
  @ApiErrors(...BODY_ERRORS, 403, 404)
  async update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() input: UpdatePrincipalInput,
    @Actor() actor: AuditActor,
  ): Promise<PrincipalView> {
    const target = await this.found(id);
    const changes = Object.fromEntries(
      Object.entries(input).filter(([, value]) => value !== undefined),
    ) as PrincipalChanges;
    if (typeof changes.plan === 'string' && !planNamed(this.settings.plans, changes.plan)) {
      throw new ValidationFailed([
        {
          loc: ['body', 'plan'],
          msg: `Unknown plan '${changes.plan}'; expected one of: ${Object.keys(this.settings.plans).join(', ')}`,
          type: 'value_error',
        },
      ]);
    }
    const grant = { ...changes, plan: changes.plan ?? undefined };
    this.checkManageable(caller, target);
    if (escalates(caller, grant, this.settings, this.catalog.costs(), this.planOf(target))) {
      throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    }
    const record = await this.principals.update(target, changes, actor);
    if (!record) throw new ApiError(404, PRINCIPAL_NOT_FOUND);
    return toView(record, this.planOf);
  }

  /**
   * Deletes a principal and its usage history. Its next token makes it anew, enabled, on the
   * default plan: a disabled principal is refused (409), for its record is what keeps it out.
   */
  @Delete(':id')
  @HttpCode(200)
  @Scopes(['admin:write'])
  @ApiOperation({ operationId: 'deletePrincipal', summary: 'Delete an OAuth principal' })
  @ApiOkResponse({ type: DeletedPrincipal })
  @ApiErrors(403, 404, 409)
  async delete(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Actor() actor: AuditActor,
  ): Promise<DeletedPrincipal> {
    const target = await this.found(id);
    this.checkManageable(caller, target);
    if (!target.enabled) throw new ApiError(409, PRINCIPAL_DISABLED);
    if (!(await this.principals.delete(target.id, actor))) {
      throw new ApiError(404, PRINCIPAL_NOT_FOUND);
    }
    return { id: target.id, deleted: true };
  }

  /**
   * 403 unless the caller holds all the principal holds: every scope its tokens carried (all of
   * them while none is recorded), limits and prices within its own.
   */
  private checkManageable(caller: Caller, target: PrincipalRecord): void {
    const held = { scopes: target.scopes ?? ['*'], ...this.limited(target) };
    if (!mayManage(caller, held, this.settings, this.catalog.costs())) {
      throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    }
  }

  private readonly planOf = (record: PrincipalRecord) => this.principals.planOf(record);

  /** A principal's limits as they stand (its plan: the operator's, else OAUTH_DEFAULT_PLAN). */
  private limited(record: PrincipalRecord) {
    return {
      id: record.id,
      plan: this.principals.planOf(record),
      daily_limit: record.daily_limit,
      monthly_limit: record.monthly_limit,
      rate_limit: record.rate_limit,
    };
  }

  private async found(id: string): Promise<PrincipalRecord> {
    const record = PRINCIPAL_ID.test(id) ? await this.principals.find(id) : undefined;
    if (!record) throw new ApiError(404, PRINCIPAL_NOT_FOUND);
    return record;
  }
}
