import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCaller } from '../../subjects';
import { ApiErrors, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import type { Caller } from '../../subjects';
import {
  QuotaService,
  ToolUsageView,
  UsageView,
  ApiUsage,
  historyDays,
  usageView,
} from '../../limits';

@ApiTags('usage')
@ApiExtraModels(ToolUsageView)
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/usage')
export class UsageController {
  constructor(private readonly quota: QuotaService) {}

  /** Today's usage of the calling key, and its history per UTC day. */
  @Get()
  @ApiOperation({ operationId: 'getUsage', summary: "The calling key's usage and history" })
  @ApiUsage()
  @ApiErrors(400)
  usage(@CurrentCaller() key: Caller, @Query() query: Record<string, unknown>): Promise<UsageView> {
    return usageView(this.quota, key, historyDays(query));
  }
}
