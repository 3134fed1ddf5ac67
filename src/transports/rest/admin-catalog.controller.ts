import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Scopes } from '../../kernel/auth/auth.decorators';
import { ApiErrors, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { ADMIN_PATH } from './admin-usage.controller';
import { PlanList, ToolDetailsList, CatalogReport } from '../../reports';

/**
 * What the service offers, for operators (`admin:read`): the plans keys may be given, and every
 * tool with its schemas, its price on each plan, its runtime settings and MCP's hints.
 */
@ApiTags('admin')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller(ADMIN_PATH)
export class AdminCatalogController {
  constructor(private readonly catalog: CatalogReport) {}

  @Get('plans')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listPlans', summary: 'The plans and their limits' })
  @ApiOkResponse({ type: PlanList })
  @ApiErrors(403)
  plans(): PlanList {
    return this.catalog.plans();
  }

  @Get('tools')
  @Scopes(['admin:read'])
  @ApiOperation({
    operationId: 'listToolDetails',
    summary: 'Every tool, its price on each plan and its runtime settings',
  })
  @ApiOkResponse({ type: ToolDetailsList })
  @ApiErrors(403)
  tools(): ToolDetailsList {
    return this.catalog.tools();
  }
}
