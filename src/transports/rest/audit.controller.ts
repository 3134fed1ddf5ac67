import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAuditPage, auditPage, AuditService, AuditPage } from '../../audit';
import { nextPage } from '../../kernel/http/page-cursor';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { ApiErrors, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { Scopes } from '../../kernel/auth/auth.decorators';

@ApiTags('audit')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  /** Who changed which key or setting: newest first, 90 days, a page at a time (`Link` to the next). */
  @Get()
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listAuditEntries', summary: 'The audit trail' })
  @ApiAuditPage(AuditPage, 500)
  @ApiErrors(400, 403)
  async list(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<AuditPage> {
    const { limit, before } = auditPage(query, 500);
    const found = await this.audit.list(limit + 1, before);
    const entries = found.slice(0, limit);
    const next = found.length > limit ? String(entries[limit - 1].id) : null;
    return { entries, next_cursor: nextPage(res, next, { path: '/api/v1/audit', limit }) };
  }
}
