import { Injectable } from '@nestjs/common';
import { MetricsService } from '../metrics';
import { AuthorizationServers } from '../oauth';
import type { ErrorCountsView, IssuersView } from './reports.dto';

/** How the service is doing, for operators: this instance's errors by status, the issuers' health. */
@Injectable()
export class StatusReport {
  /** When this instance's counts of answers began. */
  private readonly since = new Date().toISOString();

  constructor(
    private readonly metrics: MetricsService,
    private readonly servers: AuthorizationServers,
  ) {}

  /** Error answers of this instance since it started, by status (its `/metrics` counts). */
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
  async issuers(): Promise<IssuersView> {
    const probed = await this.servers.probe();
    return {
      issuers: probed.map(({ issuer, ok, failure }) => ({
        issuer,
        status: ok ? 'ok' : 'failing',
        failure: ok ? null : (failure ?? 'not fetched yet'),
      })),
    };
  }
}
