import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Scopes } from '../auth/auth.decorators';
import { ApiErrors, KEYED_ERRORS } from '../docs/api-errors';
import { HISTORY_MAX_DAYS } from '../limits/quota.service';
import { MetricsService } from '../metrics/metrics.service';
import { AuthorizationServers } from '../oauth/authorization-servers';
import { queryInts } from '../validation/query';
import { ErrorCountsView, IssuersView, TopUsageView, UsageTotalsView } from './admin.dto';
import { UsageTotals } from './usage-totals';

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
  /** When this instance's counts of answers began. */
  private readonly since = new Date().toISOString();

  constructor(
    private readonly totals: UsageTotals,
    private readonly metrics: MetricsService,
    private readonly issuers: AuthorizationServers,
  ) {}

  /** Calls, credits and failures of every key and principal, by UTC day, today first. */
  @Get('usage')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getUsageTotals', summary: 'Usage of every key, by day' })
  @daysQuery(30)
  @ApiOkResponse({ type: UsageTotalsView })
  @ApiErrors(400, 403)
  async usage(@Query() query: Record<string, unknown>): Promise<UsageTotalsView> {
    const { days } = queryInts(query, { days: { min: 1, max: HISTORY_MAX_DAYS, default: 30 } });
    const snapshot = await this.totals.snapshot(days as number);
    const totals = { calls: 0, credits: 0, failed: 0 };
    for (const day of snapshot.days) {
      totals.calls += day.calls;
      totals.credits += day.credits;
      totals.failed += day.failed;
    }
    return {
      days: days as number,
      totals,
      history: snapshot.days,
      subjects: snapshot.subjects.length,
    };
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
  async top(@Query() query: Record<string, unknown>): Promise<TopUsageView> {
    const { days, limit } = queryInts(query, {
      days: { min: 1, max: HISTORY_MAX_DAYS, default: 30 },
      limit: { min: 1, max: TOP_MAX, default: 10 },
    });
    const snapshot = await this.totals.snapshot(days as number);
    const callers = [...snapshot.subjects]
      .sort((a, b) => b.credits - a.credits || b.calls - a.calls || a.id.localeCompare(b.id))
      .slice(0, limit);
    const tools = [...snapshot.tools]
      .sort((a, b) => b.calls - a.calls || b.credits - a.credits || a.tool.localeCompare(b.tool))
      .slice(0, limit);
    return { days: days as number, callers, tools };
  }

  /** Error answers of this instance since it started, by status (its `/metrics` counts). */
  @Get('errors')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getErrorCounts', summary: "This instance's errors by status" })
  @ApiOkResponse({ type: ErrorCountsView })
  @ApiErrors(403)
  async errors(): Promise<ErrorCountsView> {
    const counts = new Map<number, number>();
    const answers = this.metrics.registry.getSingleMetric('http_requests_total');
    for (const { labels, value } of answers ? (await answers.get()).values : []) {
      const status = Number(labels.status_code);
      if (status >= 400 && value > 0) counts.set(status, (counts.get(status) ?? 0) + value);
    }
    return {
      since: this.since,
      statuses: [...counts].sort(([a], [b]) => a - b).map(([status, count]) => ({ status, count })),
    };
  }

  /** Each issuer of OAUTH_ISSUERS and whether its metadata and keys can be fetched. */
  @Get('issuers')
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'getIssuerHealth', summary: 'Health of the OAuth issuers' })
  @ApiOkResponse({ type: IssuersView })
  @ApiErrors(403)
  async issuerHealth(): Promise<IssuersView> {
    const probed = await this.issuers.probe();
    return {
      issuers: probed.map(({ issuer, ok, failure }) => ({
        issuer,
        status: ok ? 'ok' : 'failing',
        failure: ok ? null : (failure ?? 'not fetched yet'),
      })),
    };
  }
}
