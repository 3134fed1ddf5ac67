import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiQuery } from '@nestjs/swagger';
import { HISTORY_MAX_DAYS, QuotaService } from './quota.service';
import type { Payer } from './key-limits';
import { queryInts } from '../kernel/validation/query';
import { UsageView } from './usage.dto';

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
export async function usageView(quota: QuotaService, key: Payer, days: number): Promise<UsageView> {
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
