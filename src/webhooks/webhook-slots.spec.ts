import { Registry } from 'prom-client';
import { WebhookMetrics } from './webhook-metrics';
import { DeliverySlots, endpointSlots } from './webhook-slots';
import type { WebhookDelivery } from './webhook.store';

describe("an instance's delivery slots", () => {
  it('gives an endpoint its share of the slots, at least one', () => {
    expect(endpointSlots({ concurrency: 20, endpointShare: 0.25 })).toBe(5);
    expect(endpointSlots({ concurrency: 4, endpointShare: 0.25 })).toBe(1);
    expect(endpointSlots({ concurrency: 3, endpointShare: 0.25 })).toBe(1);
    expect(endpointSlots({ concurrency: 8, endpointShare: 1 })).toBe(8);
  });

  it('claims within the free slots, says what each endpoint holds, starts after the last served', async () => {
    const registry = new Registry();
    const slots = new DeliverySlots(
      { concurrency: 4, endpointShare: 0.5 },
      new WebhookMetrics(registry, () => Promise.resolve(0)),
    );
    expect(slots.limits()).toEqual({
      total: 4,
      perEndpoint: 2,
      failingAfter: 5,
      inFlight: new Map(),
      after: undefined,
    });
    slots.claimed([{ endpoint_id: 'wh_a' }, { endpoint_id: 'wh_b' }] as WebhookDelivery[]);
    for (const id of ['wh_a', 'wh_a', 'wh_b']) slots.take(id);
    expect(slots.limits()).toMatchObject({
      total: 1,
      inFlight: new Map([
        ['wh_a', 2],
        ['wh_b', 1],
      ]),
      after: 'wh_b',
    });
    const gauge = async () =>
      (await registry.getSingleMetric('webhook_attempts_in_flight')?.get())?.values;
    expect(await gauge()).toEqual([
      { labels: { endpoint: 'wh_a' }, value: 2 },
      { labels: { endpoint: 'wh_b' }, value: 1 },
    ]);
    slots.take('wh_c');
    expect(slots.limits()).toBeUndefined();
    for (const id of ['wh_a', 'wh_b', 'wh_c']) slots.give(id);
    expect(slots.limits()).toMatchObject({ total: 3, inFlight: new Map([['wh_a', 1]]) });
    expect(await gauge()).toEqual([{ labels: { endpoint: 'wh_a' }, value: 1 }]);
  });
});
