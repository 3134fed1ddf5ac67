import { Controller, Delete, Get, HttpCode, Param, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentCaller } from '../../subjects';
import type { Caller } from '../../subjects';
import { encodePosition, nextPage } from '../../kernel/http/page-cursor';
import { ApiPage } from '../../kernel/openapi/page.decorator';
import { hasScope } from '../../kernel/auth/scopes';
import { ApiErrors, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { ApiError } from '../../kernel/errors/api-error';
import type { ReplyControl } from '../../kernel/http/plumbing';
import {
  INVOCATION_STATUSES,
  InvocationRecord,
  InvocationStatus,
  INVOCATION_ID,
  INVOCATIONS_PATH,
  invocationsAfter,
  invocationView,
  InvocationView,
  isFinished,
  LongRunningCalls,
  ownsInvocation,
} from '../../invocations';
import { queryChoice, queryInts } from '../../kernel/validation/query';

const MAX_PAGE = 100;
export const INVOCATION_NOT_FOUND = 'Invocation not found';

/**
 * Long-running calls over REST (docs/long-running-calls.md): one call's view (its caller's, or an
 * `admin:read` caller's), its cancel (its caller's, or an `admin:write` caller's), and the list
 * of the caller's own. Someone else's call is as unknown as one that never was: 404.
 */
@ApiTags('invocations')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller(INVOCATIONS_PATH.slice(1))
export class InvocationsController {
  constructor(private readonly calls: LongRunningCalls) {}

  /** The caller's own calls, newest first, a page at a time (`Link` to the next). */
  @Get()
  @ApiOperation({ operationId: 'listInvocations', summary: "The caller's long-running calls" })
  @ApiQuery({
    name: 'status',
    required: false,
    schema: { type: 'string', enum: [...INVOCATION_STATUSES] },
  })
  @ApiPage(InvocationView, MAX_PAGE)
  @ApiErrors(400)
  async list(
    @CurrentCaller() caller: Caller,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<InvocationView[]> {
    const { limit } = queryInts(query, { limit: { min: 1, max: MAX_PAGE, default: MAX_PAGE } });
    const status = queryChoice<InvocationStatus>(query, 'status', INVOCATION_STATUSES);
    const after = invocationsAfter(query.cursor);
    const page = limit as number;
    const records = await this.calls.list(caller.id, {
      status,
      after,
      limit: page + 1,
    });
    const last = records.length > page ? records[page - 1] : undefined;
    const next = last && encodePosition(last.created_at, last.id);
    nextPage(res, next, { path: INVOCATIONS_PATH, limit: page, filters: { status } });
    // A run's token lists the calls of its run only (the page may hold fewer than `limit`).
    return records
      .slice(0, page)
      .filter((record) => ownsInvocation(caller, record))
      .map(invocationView);
  }

  /** One call as it stands: queued, running (with its progress), or over (its result or error). */
  @Get(':id')
  @ApiOperation({ operationId: 'getInvocation', summary: 'A long-running call' })
  @ApiOkResponse({ type: InvocationView })
  @ApiErrors(404)
  async get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<InvocationView> {
    return invocationView(await this.found(caller, id, 'admin:read'));
  }

  /**
   * Cancels a call: its signal aborts (on whichever instance runs it); the view turns
   * `cancelled` once the tool has stopped. A call already over is 409.
   */
  @Delete(':id')
  @HttpCode(202)
  @ApiOperation({ operationId: 'cancelInvocation', summary: 'Cancel a long-running call' })
  @ApiAcceptedResponse({ type: InvocationView, description: 'The cancel is under way.' })
  @ApiErrors(404, 409)
  async cancel(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<InvocationView> {
    const record = await this.found(caller, id, 'admin:write');
    if (isFinished(record.status)) throw new ApiError(409, 'Invocation already finished');
    await this.calls.cancel(record.id);
    return invocationView((await this.calls.find(record.id)) ?? record);
  }

  private async found(
    caller: Caller,
    id: string,
    operatorScope: string,
  ): Promise<InvocationRecord> {
    const record = INVOCATION_ID.test(id) ? await this.calls.find(id) : undefined;
    if (!record || (!ownsInvocation(caller, record) && !hasScope(caller.scopes, operatorScope))) {
      throw new ApiError(404, INVOCATION_NOT_FOUND);
    }
    return record;
  }
}
