import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '../../audit';
import { Scopes } from '../../kernel/auth/auth.decorators';
import {
  ApiExternalIdQuery,
  CurrentCaller,
  MAX_SUBJECT_PAGE,
  SubjectsService,
} from '../../subjects';
import type { Caller, PrincipalRecord } from '../../subjects';
import { ApiPage } from '../../kernel/openapi/page.decorator';
import { ApiUsage, UsageView } from '../../limits';
import { ApiErrors, BODY_ERRORS, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import type { ReplyControl } from '../../kernel/http/plumbing';
import {
  PrincipalsService,
  PrincipalSubjects,
  PRINCIPALS_PATH,
  DeletedPrincipal,
  PrincipalView,
  UpdatePrincipalInput,
} from '../../oauth';

export { PRINCIPALS_PATH };

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
    external_id: record.external_id,
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
    private readonly subjects: SubjectsService,
    private readonly kind: PrincipalSubjects,
  ) {}

  /**
   * Principals in the order they were first seen, a page at a time (`Link` to the next);
   * `external_id` keeps those of one external id (a bounded search, as the keys').
   */
  @Get()
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listPrincipals', summary: 'List OAuth principals' })
  @ApiExternalIdQuery()
  @ApiPage(PrincipalView, MAX_SUBJECT_PAGE)
  @ApiErrors(400, 403)
  async list(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<PrincipalView[]> {
    const records = await this.subjects.page(this.kind, query, res);
    return records.map((record) => toView(record, this.planOf));
  }

  @Get(':id')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getPrincipal', summary: 'One OAuth principal' })
  @ApiOkResponse({ type: PrincipalView })
  @ApiErrors(403, 404)
  async get(@Param('id') id: string): Promise<PrincipalView> {
    return toView(await this.subjects.find(this.kind, id), this.planOf);
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
    return this.subjects.usage(this.kind, id, query);
  }

  /**
   * Changes a principal: plan, limits, enabled, external id. Effective from its next call on any instance; a
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
    const record = await this.subjects.change(this.kind, caller, id, { ...input }, actor);
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
    const target = await this.subjects.remove(this.kind, caller, id, actor);
    return { id: target.id, deleted: true };
  }

  private readonly planOf = (record: PrincipalRecord) => this.principals.planOf(record);
}
