import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Scopes } from '../../kernel/auth/auth.decorators';
import {
  ANY_TOOL_SCOPE,
  hasAnyScope,
  hasScope,
  toolScope,
  toolScopes,
} from '../../kernel/auth/scopes';
import { CurrentCaller } from '../../subjects';
import type { Caller } from '../../subjects';
import { ApiErrors, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { toolCost } from '../../limits';
import { Settings, SETTINGS } from '../../kernel/settings/settings';
import { TOOLS_PATH, ToolRegistry, ToolList } from '../../tools/index';

/**
 * Discovery: the registered tools, described from the registry (the same schemas that validate),
 * each with what a call costs the caller (its plan's price) and the scope that allows it. A
 * `services:read` caller sees every tool; a caller with only per-tool scopes, those it may call.
 */
@ApiTags('tools')
@ApiBearerAuth()
@Controller(TOOLS_PATH)
export class ToolsController {
  constructor(
    private readonly registry: ToolRegistry,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  @Get()
  @Scopes(['services:read', ANY_TOOL_SCOPE])
  @ApiOperation({
    operationId: 'listServices',
    summary: 'The tools, with the JSON Schema of their input and output and what a call costs.',
    description:
      'Needs `services:read`, `services:execute` or a per-tool scope (`services:execute:<tool>`): a caller with per-tool scopes only sees the tools it may call.',
  })
  @ApiOkResponse({ type: ToolList })
  @ApiErrors(...KEYED_ERRORS, 403)
  list(@CurrentCaller() caller: Caller): ToolList {
    const seesAll = hasScope(caller.scopes, 'services:read');
    return {
      tools: this.registry
        .list()
        .filter((tool) => seesAll || hasAnyScope(caller.scopes, toolScopes(tool)))
        .map((tool) => ({
          name: tool.name,
          description: tool.description,
          method: 'POST',
          path: tool.path,
          scope: toolScope(tool.name),
          cost: toolCost(this.settings, caller.plan, tool.name, tool.runtime.cost),
          input_schema: tool.inputSchema,
          output_schema: tool.outputSchema ?? {},
        })),
    };
  }
}
