import { Injectable } from '@nestjs/common';
import { plural } from '../../../kernel/common/text';
import { WebhooksService } from '../../../webhooks';
import { CheckOutcome, DoctorCheck, HealthCheck, pass, warn } from '../doctor-check';

/**
 * The webhook endpoints: a warning while one fails its deliveries (5 days of it disable it), once
 * one was disabled by its receiver's 410 or by those 5 days, and for a day after deliveries of one
 * failed unsent past WEBHOOK_MAX_PENDING_PER_ENDPOINT; the outbox's depth beside.
 */
@DoctorCheck({ order: 87 })
@Injectable()
export class WebhooksCheck implements HealthCheck {
  readonly name = 'webhooks';

  constructor(private readonly webhooks: WebhooksService) {}

  async check(): Promise<CheckOutcome> {
    const { endpoints, failing, disabled, backlogged, maxPending, pending } =
      await this.webhooks.health();
    if (endpoints === 0) return pass('No webhook endpoints');
    const depth = `${pending} ${pending === 1 ? 'delivery' : 'deliveries'} pending`;
    const problems = [
      ...failing.map((id) => `${id} is failing its deliveries`),
      ...disabled.map(({ id, reason }) =>
        reason === 'gone'
          ? `${id} was disabled: its receiver answered 410`
          : `${id} was disabled after 5 days of failed deliveries`,
      ),
      ...backlogged.map(
        ({ id, failed, at }) =>
          `${id}: ${failed} ${failed === 1 ? 'delivery' : 'deliveries'} failed unsent past its backlog of ${maxPending} pending (WEBHOOK_MAX_PENDING_PER_ENDPOINT), the last at ${at}`,
      ),
    ];
    if (problems.length === 0)
      return pass(`${plural(endpoints, 'endpoint')}, all delivering; ${depth}`);
    const remedy = 'see GET /api/v1/webhooks/<id>/deliveries; PATCH enabled: true once fixed';
    return warn(`${problems.join('; ')}; ${depth} (${remedy})`);
  }
}
