import { onBothBackends } from '../../test/support/store-contract';
import { RATE_STORE } from './limits.stores';
import type { RateBudget } from './rate.store';

const T0 = 1_800_000_000_000;
const budget = (over: Partial<RateBudget> = {}): RateBudget => ({
  throttler: 'key',
  storageKey: 'key_0123456789abcdef',
  windowMs: 60_000,
  rate: 6,
  burst: 3,
  ...over,
});

onBothBackends('rate budgets (token buckets)', RATE_STORE, (current) => {
  it('gives a full bucket at once, then one call each time its rate refills one', async () => {
    const { store } = current();
    const drawn = [];
    for (let i = 0; i < 4; i++) drawn.push(await store.draw(budget(), 1, T0));
    expect(drawn.map((d) => d.taken)).toEqual([true, true, true, false]);
    expect(drawn[2]).toMatchObject({ remaining: 0, untilOneMs: 10_000, untilFullMs: 30_000 });
    expect(drawn[3]).toMatchObject({ taken: false, remaining: 0, untilOneMs: 10_000 });
    // A refusal took nothing: ten seconds on (60 s / 6), one call is there again.
    expect(await store.draw(budget(), 1, T0 + 10_000)).toMatchObject({ taken: true, remaining: 0 });
    expect(await store.draw(budget(), 1, T0 + 10_000)).toMatchObject({ taken: false });
  });

  it('takes several calls all or none, and never holds more than its burst', async () => {
    const { store } = current();
    expect(await store.draw(budget(), 4, T0)).toMatchObject({ taken: false, remaining: 3 });
    expect(await store.draw(budget(), 3, T0)).toMatchObject({ taken: true, remaining: 0 });
    // Quiet for ten minutes: full again, not fuller.
    expect(await store.draw(budget(), 1, T0 + 600_000)).toMatchObject({
      taken: true,
      remaining: 2,
    });
  });

  it('keeps each key its own bucket', async () => {
    const { store } = current();
    await store.draw(budget(), 3, T0);
    expect(await store.draw(budget({ storageKey: 'key_fedcba9876543210' }), 3, T0)).toMatchObject({
      taken: true,
    });
  });
});
