import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Scopes } from '../auth/auth.decorators';
import { ApiErrors, KEYED_ERRORS } from '../docs/api-errors';
import { TOOLS_PATH } from './tool.decorator';
import { ToolRegistry } from './tool.registry';
import { ToolList } from './tools.dto';

/** Discovery: every registered tool, described from the registry (the same schemas that validate). */
@ApiTags('tools')
@ApiBearerAuth()
@Controller(TOOLS_PATH)
export class ToolsController {
  constructor(private readonly registry: ToolRegistry) {}

  @Get()
  @Scopes(['services:read', 'services:execute'])
  @ApiOperation({
    operationId: 'listServices',
    summary: 'Every tool, with the JSON Schema of its input and output.',
  })
  @ApiOkResponse({ type: ToolList })
  @ApiErrors(...KEYED_ERRORS, 403)
  list(): ToolList {
    return {
      tools: this.registry.list().map((tool) => ({
        name: tool.name,
        description: tool.description,
        method: 'POST',
        path: tool.path,
        input_schema: tool.inputSchema,
        output_schema: tool.outputSchema,
      })),
    };
  }
}
