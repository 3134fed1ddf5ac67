import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  Param,
  Patch,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { Actor, type AuditActor } from '../../audit';
import { ANY_TOOL_SCOPE } from '../../kernel/auth/scopes';
import { Scopes } from '../../kernel/auth/auth.decorators';
import { nextPage, pageCursor } from '../../kernel/http/page-cursor';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { ApiCursorPage } from '../../kernel/openapi/page.decorator';
import { ApiErrors, BODY_ERRORS, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { invalidQueryValue, queryChoice, queryInts } from '../../kernel/validation/query';
import {
  CreatedRun,
  CreateRunInput,
  RunPage,
  RunsService,
  RunView,
  UpdateRunInput,
  type RunStatus,
} from '../../runs';
import { CurrentCaller, type Caller } from '../../subjects';

export const RUNS_PATH = '/api/v1/runs';

const ID = /^(key_[0-9a-f]{16}|prn_[0-9a-f]{32})$/;
const CURSOR_ALIAS = {
  name: 'before',
  schema: { type: 'string' },
  description: 'The `next_cursor` of the last page.',
} as const;

/** Runs: a budget and a token for one agent's task (docs/runs-and-ledger.md). */
@ApiTags('runs')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  /** A run of the caller's: its token is in this answer only. */
  @Post()
  @Scopes([ANY_TOOL_SCOPE])
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'createRun', summary: 'Start a run (token shown once)' })
  @ApiCreatedResponse({ type: CreatedRun })
  @ApiErrors(...BODY_ERRORS, 403, 429)
  async create(
    @Body() input: CreateRunInput,
    @CurrentCaller() caller: Caller,
    @Actor() actor: AuditActor,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<CreatedRun> {
    const created = await this.runs.create(caller, input, actor);
    res.header('Location', `${RUNS_PATH}/${created.id}`);
    return created;
  }

  /** The caller's runs, newest first; with admin:read every run, by parent and status. */
  @Get()
  @Scopes([ANY_TOOL_SCOPE, 'admin:read'])
  @ApiOperation({ operationId: 'listRuns', summary: 'Runs, newest first' })
  @ApiQuery({ name: 'parent', required: false, description: 'A key or principal id (admin:read).' })
  @ApiQuery({ name: 'status', required: false, enum: ['active', 'ended', 'expired'] })
  @ApiCursorPage(RunPage, { max: 100, default: 50, alias: CURSOR_ALIAS })
  @ApiErrors(400, 403)
  async list(
    @CurrentCaller() caller: Caller,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<RunPage> {
    const { limit } = queryInts(query, { limit: { min: 1, max: 100, default: 50 } });
    const status = queryChoice<RunStatus>(query, 'status', ['active', 'ended', 'expired']);
    const parent = query.parent;
    if (parent !== undefined && (typeof parent !== 'string' || !ID.test(parent))) {
      throw invalidQueryValue('parent', 'a key id (key_…) or a principal id (prn_…)');
    }
    const from = pageCursor(query, 'before');
    const before = from?.value;
    if (
      before !== undefined &&
      (typeof before !== 'string' || !/^run_[0-9a-f]{32}$/.test(before))
    ) {
      throw invalidQueryValue(from!.name, 'the next_cursor of a page');
    }
    const found = await this.runs.list(caller, { parent, status, before, limit: limit as number });
    const link = { path: RUNS_PATH, limit: limit as number, filters: { parent, status } };
    nextPage(res, found.next_cursor, link);
    return found;
  }

  /** One run, with what it spent on each tool. */
  @Get(':id')
  @Scopes([ANY_TOOL_SCOPE, 'admin:read'])
  @ApiOperation({ operationId: 'getRun', summary: 'One run' })
  @ApiOkResponse({ type: RunView })
  @ApiErrors(403, 404)
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<RunView> {
    return this.runs.get(caller, id);
  }

  /**
   * A new budget or label; `ttl_seconds` gives an active run that long from now (a principal's run:
   * by its principal, within the token it sends), 409 for one that has ended.
   */
  @Patch(':id')
  @Scopes([ANY_TOOL_SCOPE, 'admin:write'])
  @ApiOperation({ operationId: 'updateRun', summary: "Change a run's budget, label or time" })
  @ApiOkResponse({ type: RunView })
  @ApiErrors(...BODY_ERRORS, 403, 404, 409)
  update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() input: UpdateRunInput,
    @Actor() actor: AuditActor,
  ): Promise<RunView> {
    return this.runs.update(caller, id, input, actor);
  }

  /** Ends the run at once: calls running finish, new ones are refused (401). */
  @Delete(':id')
  @Scopes([ANY_TOOL_SCOPE, 'admin:write'])
  @ApiOperation({ operationId: 'deleteRun', summary: 'End a run' })
  @ApiOkResponse({ type: RunView })
  @ApiErrors(403, 404)
  remove(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Actor() actor: AuditActor,
  ): Promise<RunView> {
    return this.runs.remove(caller, id, actor);
  }
}
