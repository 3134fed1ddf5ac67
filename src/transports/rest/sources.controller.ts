import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Actor, type AuditActor } from '../../audit';
import { Scopes } from '../../kernel/auth/auth.decorators';
import { ApiError } from '../../kernel/errors/api-error';
import { nextPage } from '../../kernel/http/page-cursor';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { ApiErrors, BODY_ERRORS } from '../../kernel/openapi/api-errors';
import { ApiCursorPage } from '../../kernel/openapi/page.decorator';
import { invalidQueryValue, queryInts } from '../../kernel/validation/query';
import {
  ApiSourcesService,
  CreateSourceInput,
  SOURCE_INPUT_MODELS,
  SOURCE_NAME,
  SOURCE_NOT_FOUND,
  SourceList,
  SourcesService,
  SourceView,
  sourceView,
  UpdateSourceInput,
} from '../../sources';

export const SOURCES_PATH = '/api/v1/sources';

/** A page's cursor: the last name of the page, base64url. */
function cursorOf(name: string): string {
  return Buffer.from(name, 'utf8').toString('base64url');
}

function nameOf(cursor: unknown): string | null {
  if (typeof cursor !== 'string' || cursor.length > 64) return null;
  const name = Buffer.from(cursor, 'base64url').toString('utf8');
  return SOURCE_NAME.test(name) ? name : null;
}

/**
 * The sources (docs/sources.md): their state, tools and last error, a refresh on demand, and the
 * sources made here (HTTP MCP servers and OpenAPI documents by URL; CONFIG_FILE's are read-only).
 * Each answer first takes in what other instances changed (ApiSourcesService.catchUp).
 */
@ApiTags('sources')
@ApiBearerAuth()
@ApiExtraModels(...SOURCE_INPUT_MODELS)
@Controller(SOURCES_PATH)
export class SourcesController {
  constructor(
    private readonly sources: SourcesService,
    private readonly made: ApiSourcesService,
  ) {}

  /** A new source: its view at once (`state: starting`, `tools: []` until its upstream is read). */
  @Post()
  @Scopes(['admin:write'])
  @ApiOperation({
    operationId: 'createSource',
    summary: 'Add a source (an HTTP MCP server or an OpenAPI document by URL)',
  })
  @ApiBody({ type: CreateSourceInput })
  @ApiCreatedResponse({ type: SourceView })
  @ApiErrors(...BODY_ERRORS, 403, 409)
  async create(
    @Body() body: unknown,
    @Actor() actor: AuditActor,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<SourceView> {
    const view = await this.made.create(body, actor);
    res.header('Location', `${SOURCES_PATH}/${view.name}`);
    return view;
  }

  /** The sources, by name, a page at a time (`Link` to the next). */
  @Get()
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listSources', summary: 'Every source (at most 100)' })
  @ApiCursorPage(SourceList, { max: 100, default: 100 })
  @ApiErrors(400, 403)
  async list(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<SourceList> {
    await this.made.catchUp();
    const { limit } = queryInts(query, { limit: { min: 1, max: 100, default: 100 } });
    const after = query.cursor === undefined ? '' : nameOf(query.cursor);
    if (after === null)
      throw invalidQueryValue('cursor', 'this cursor was not issued by the service');
    const all = this.sources
      .list()
      .filter((source) => source.definition.name > after)
      .sort((a, b) => (a.definition.name < b.definition.name ? -1 : 1));
    const page = all.slice(0, limit);
    const next = all.length > page.length ? cursorOf(page[page.length - 1].definition.name) : null;
    return {
      sources: page.map(sourceView),
      next_cursor: nextPage(res, next, { path: SOURCES_PATH, limit: limit as number }),
    };
  }

  @Get(':name')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getSource', summary: 'One source' })
  @ApiOkResponse({ type: SourceView })
  @ApiErrors(403, 404)
  async get(@Param('name') name: string): Promise<SourceView> {
    await this.made.catchUp();
    return sourceView(this.found(name));
  }

  /** Changes a source made through the API and reads its upstream again. */
  @Patch(':name')
  @Scopes(['admin:write'])
  @ApiOperation({ operationId: 'updateSource', summary: 'Change a source made through the API' })
  @ApiBody({ type: UpdateSourceInput })
  @ApiOkResponse({ type: SourceView })
  @ApiErrors(...BODY_ERRORS, 403, 404, 409)
  update(
    @Param('name') name: string,
    @Body() body: unknown,
    @Actor() actor: AuditActor,
  ): Promise<SourceView> {
    return this.made.update(name, body, actor);
  }

  /** Removes a source made through the API: its tools are gone at once. */
  @Delete(':name')
  @HttpCode(204)
  @Scopes(['admin:write'])
  @ApiOperation({ operationId: 'deleteSource', summary: 'Remove a source made through the API' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors(403, 404, 409)
  async remove(@Param('name') name: string, @Actor() actor: AuditActor): Promise<void> {
    await this.made.remove(name, actor);
  }

  /** Lists the source's tools again now: its view once listed (or its reason in `last_error`). */
  @Post(':name/refresh')
  @HttpCode(200)
  @Scopes(['admin:write'])
  @ApiOperation({ operationId: 'refreshSource', summary: "List a source's tools again" })
  @ApiOkResponse({ type: SourceView })
  @ApiErrors(403, 404)
  async refresh(@Param('name') name: string): Promise<SourceView> {
    await this.made.catchUp();
    const source = this.found(name);
    await this.sources.refresh(name);
    return sourceView(source);
  }

  private found(name: string) {
    const source = this.sources.get(name);
    if (!source) throw new ApiError(404, SOURCE_NOT_FOUND);
    return source;
  }
}
