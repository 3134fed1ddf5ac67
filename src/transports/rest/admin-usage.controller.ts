import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Scopes } from '../../kernel/auth/auth.decorators';
import { ApiErrors, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { HISTORY_MAX_DAYS } from '../../limits';
import { queryInts } from '../../kernel/validation/query';
import {
  ErrorCountsView,
  IssuersView,
  TopUsageView,
  UsageTotalsView,
  StatusReport,
  UsageTotals,
} from '../../reports';

export const ADMIN_PATH = 'api/v1/admin';
const TOP_MAX = 100;

const daysQuery = (fallback: number) =>
  ApiQuery({
    name: 'days',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: HISTORY_MAX_DAYS, default: fallback },
    description: 'UTC days, today included.',
  });

/**
 * What the whole service did, for operators (`admin:read`): every key's and principal's usage by
 * day and the biggest spenders, from the usage counters; this instance's errors by status; the
 * health of the OAuth issuers.
 */
@ApiTags('admin')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller(ADMIN_PATH)
export class AdminUsageController {
  constructor(
    private readonly totals: UsageTotals,
    private readonly status: StatusReport,
  ) {}

  /** Calls, credits and failures of every key and principal, by UTC day, today first. */
  @Get('usage')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getUsageTotals', summary: 'Usage of every key, by day' })
  @daysQuery(30)
  @ApiOkResponse({ type: UsageTotalsView })
  @ApiErrors(400, 403)
  usage(@Query() query: Record<string, unknown>): Promise<UsageTotalsView> {
    const { days } = queryInts(query, { days: { min: 1, max: HISTORY_MAX_DAYS, default: 30 } });
    return this.totals.byDay(days as number);
  }

  /** The keys and principals that spent the most, and the tools called the most. */
  @Get('usage/top')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getTopUsage', summary: 'The biggest callers and tools' })
  @daysQuery(30)
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: TOP_MAX, default: 10 },
  })
  @ApiOkResponse({ type: TopUsageView })
  @ApiErrors(400, 403)
  top(@Query() query: Record<string, unknown>): Promise<TopUsageView> {
    const { days, limit } = queryInts(query, {
      days: { min: 1, max: HISTORY_MAX_DAYS, default: 30 },
      limit: { min: 1, max: TOP_MAX, default: 10 },
    });
    return this.totals.top(days as number, limit as number);
  }

  /** Error answers of this instance since it started, by status (its `/metrics` counts). */
  @Get('errors')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getErrorCounts', summary: "This instance's errors by status" })
  @ApiOkResponse({ type: ErrorCountsView })
  @ApiErrors(403)
  errors(): Promise<ErrorCountsView> {
    return this.status.errors();
  }

  /** Each issuer of OAUTH_ISSUERS and whether its metadata and keys can be fetched. */
  @Get('issuers')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getIssuerHealth', summary: 'Health of the OAuth issuers' })
  @ApiOkResponse({ type: IssuersView })
  @ApiErrors(403)
  issuerHealth(): Promise<IssuersView> {
    return this.status.issuers();
  }
}
