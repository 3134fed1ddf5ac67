import { applyDecorators, Controller, Get, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentCaller } from './auth.decorators';
import { ApiErrors, KEYED_ERRORS } from '../docs/api-errors';
import type { Caller } from './caller';
import { HISTORY_MAX_DAYS, QuotaService } from '../limits/quota.service';
import type { LimitedKey } from '../limits/key-limits';
import { queryInts } from '../validation/query';
import { ToolUsageView, UsageView } from './usage.dto';

/** The OpenAPI of a usage read (a key's, a principal's): its `days` of history and its view. */
export const ApiUsage = (): MethodDecorator =>
  applyDecorators(
    ApiQuery({
      name: 'days',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: HISTORY_MAX_DAYS, default: 1 },
    }),
    ApiOkResponse({ type: UsageView }),
  );

/** The `days` of history a usage read asks for: 1 to HISTORY_MAX_DAYS, 1 when absent; else 400. */
export function historyDays(query: Record<string, unknown>): number {
  return queryInts(query, { days: { min: 1, max: HISTORY_MAX_DAYS, default: 1 } }).days as number;
}

/** A key's usage today against its daily limit, and the last `days` UTC days. */
export async function usageView(
  quota: QuotaService,
  key: LimitedKey,
  days: number,
): Promise<UsageView> {
  const [state, history] = await Promise.all([quota.usage(key), quota.history(key, days)]);
  const monthly = state.monthly;
  return {
    plan: key.plan,
    daily_limit: state.limit,
    used: state.used,
    remaining: state.remaining,
    resets_at: state.resetsAt.toISOString(),
    monthly: monthly && {
      limit: monthly.limit,
      used: monthly.used,
      remaining: monthly.remaining,
      resets_at: monthly.resetsAt.toISOString(),
    },
    history,
  };
}

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
