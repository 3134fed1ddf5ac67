/**
 * The limits feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { LimitsService, Charge } from './limits.service';
export { CallCounter, SubjectRecordChanged } from './call-counter';
export { effectiveLimits, planLimits, toolCost } from './key-limits';
export type { Payer } from './key-limits';
export { DailyLimitPatch, LIMIT_BOUNDS, MonthlyLimitPatch, RateLimitPatch } from './limit-fields';
export { LimitsModule } from './limits.module';
export { HISTORY_MAX_DAYS, QuotaService } from './quota.service';
export type { LedgerContext, QuotaState, RunState } from './quota.service';
export { rateHeaders, rateLimitHeaders, retryAfterText } from './rate-limit.headers';
export type { BudgetStorage } from './rate.store';
export { ToolUsageView, UsageView } from './usage.dto';
export { UsageStore } from './usage.store';
export type { DayUsage, RunBudget } from './usage.store';
export { ApiUsage, historyDays, usageView } from './usage.view';
