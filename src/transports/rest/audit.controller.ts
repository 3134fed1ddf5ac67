import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AuditService, AuditPage } from '../../audit';
import { ApiErrors, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { queryInts } from '../../kernel/validation/query';
import { Scopes } from '../../auth';

@ApiTags('audit')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  /** Who changed which key or setting: newest first, 90 days; `before` pages back. */
  @Get()
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listAuditEntries', summary: 'The audit trail' })
  @ApiQuery({
    name: 'before',
    required: false,
    schema: { type: 'integer', minimum: 1 },
    description: 'Only entries older than this id: the last id of the previous page.',
  })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
  })
  @ApiOkResponse({ type: AuditPage })
  @ApiErrors(400, 403)
  async list(@Query() query: Record<string, unknown>): Promise<AuditPage> {
    const { limit, before } = queryInts(query, {
      limit: { min: 1, max: 500, default: 100 },
      before: { min: 1, max: Number.MAX_SAFE_INTEGER },
    });
    return { entries: await this.audit.list(limit as number, before) };
  }
}
