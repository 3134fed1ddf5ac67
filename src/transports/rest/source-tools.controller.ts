import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { TOOLS_PATH, ToolRoute, ToolRunner } from '../../tools/index';

/**
 * `POST /api/v1/services/<name>` of the tools that sources bring (src/sources/): they come and go
 * while the service runs, so they have one route of a parameter, mounted after every native
 * tool's own (the router tries those first), which hands the call to the same runtime. A name no
 * tool has is 404. Their operations are in the OpenAPI document as the sources list them.
 */
@ApiExcludeController()
@Controller(TOOLS_PATH)
export class SourceToolsController {
  constructor(private readonly runner: ToolRunner) {}

  @Post(':name')
  @HttpCode(200)
  @ToolRoute('source')
  serve(
    @Param('name') name: string,
    @Req() req: object,
    @Res({ passthrough: true }) res: object,
  ): Promise<unknown> {
    return this.runner.serve(name, req, res);
  }
}
