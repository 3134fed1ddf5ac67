import { onBothBackends } from '../../test/support/store-contract';
import { USAGE_STORE } from './limits.stores';
import type { QuotaCharge } from './usage.store';

const KEY = 'key_0123456789abcdef';
const DAY = '2026-11-27';
const charge = (over: Partial<QuotaCharge> = {}): QuotaCharge => ({
  day: DAY,
  dailyLimit: 10,
  month: '2026-11',
  monthlyLimit: null,
  cost: 1,
  tool: 'greet',
  ...over,
});

onBothBackends('usage and credits', USAGE_STORE, (current) => {
  it('allows exactly the calls that fit the day, however many arrive at once, on two connections', async () => {
    const { store, another } = current();
    const other = await another();
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 ? other : store).consumeQuota(KEY, charge({ cost: 3 })),
      ),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(3);
    expect(results.filter((r) => !r.allowed).every((r) => r.refused === 'daily')).toBe(true);
    expect(await store.getUsage(KEY, DAY)).toBe(9);
    expect(await other.getUsage(KEY, DAY)).toBe(9);
  });

  it('refuses a call the month cannot hold, whole, and names the monthly limit', async () => {
    const { store } = current();
    const monthly = charge({ dailyLimit: 100, monthlyLimit: 5, cost: 2 });
    expect(await store.consumeQuota(KEY, monthly)).toEqual({
      allowed: true,
      used: 2,
      monthUsed: 2,
    });
    expect(await store.consumeQuota(KEY, monthly)).toEqual({
      allowed: true,
      used: 4,
      monthUsed: 4,
    });
    expect(await store.consumeQuota(KEY, monthly)).toMatchObject({
      allowed: false,
      refused: 'monthly',
    });
    expect(await store.getUsage(KEY, DAY)).toBe(4);
    expect(await store.getMonthUsage(KEY, '2026-11')).toBe(4);
  });

  it('keeps what each tool spent a day, its failures and refunds', async () => {
    const { store } = current();
    await store.consumeQuota(KEY, charge({ cost: 2, tool: 'doctor' }));
    await store.consumeQuota(KEY, charge({ cost: 2, tool: 'doctor' }));
    await store.consumeQuota(KEY, charge());
    await store.countFailure(KEY, DAY, 'greet');
    await store.refund(KEY, { day: DAY, month: '2026-11', tool: 'doctor', credits: 2 });
    const [today, yesterday] = await store.getUsageDays(KEY, [DAY, '2026-11-26']);
    expect(today).toEqual({
      used: 3,
      byTool: {
        doctor: { calls: 2, credits: 2, failed: 1 },
        greet: { calls: 1, credits: 1, failed: 1 },
      },
    });
    expect(yesterday).toEqual({ used: 0, byTool: {} });
  });

  it("moves one id's usage onto another's, and deletes a key's", async () => {
    const { store } = current();
    const OTHER = 'key_fedcba9876543210';
    await store.consumeQuota(KEY, charge({ cost: 2 }));
    await store.consumeQuota(OTHER, charge({ cost: 3 }));
    await store.moveUsage(KEY, OTHER, DAY);
    expect(await store.getUsage(KEY, DAY)).toBe(0);
    expect(await store.getUsage(OTHER, DAY)).toBe(5);
    expect((await store.getUsageDays(OTHER, [DAY]))[0].byTool.greet).toEqual({
      calls: 2,
      credits: 5,
      failed: 0,
    });
    await store.deleteUsage(OTHER, DAY);
    expect(await store.getUsageDays(OTHER, [DAY])).toEqual([{ used: 0, byTool: {} }]);
  });

  it('counts up to the limit and refuses past it, without counting the refusals', async () => {
    const { store } = current();
    const results = [];
    for (let i = 0; i < 5; i++)
      results.push(await store.consumeQuota(KEY, charge({ dailyLimit: 3 })));
    expect(results.map(({ allowed, used }) => ({ allowed, used }))).toEqual([
      { allowed: true, used: 1 },
      { allowed: true, used: 2 },
      { allowed: true, used: 3 },
      { allowed: false, used: 3 },
      { allowed: false, used: 3 },
    ]);
    expect(await store.getUsage(KEY, DAY)).toBe(3);
  });

  it('keeps days and keys apart, counts without limit when the limit is null, refuses a limit of 0', async () => {
    const { store } = current();
    const allowed = async (keyId: string, over: Partial<QuotaCharge>) => {
      const { allowed, used } = await store.consumeQuota(keyId, charge(over));
      return { allowed, used };
    };
    await allowed(KEY, { dailyLimit: 1 });
    expect(await allowed(KEY, { dailyLimit: 1, day: '2026-11-28' })).toEqual({
      allowed: true,
      used: 1,
    });
    expect(await allowed('key_other', { dailyLimit: 1 })).toEqual({ allowed: true, used: 1 });
    for (let i = 0; i < 3; i++) await allowed('key_unlimited', { dailyLimit: null });
    expect(await store.getUsage('key_unlimited', DAY)).toBe(3);
    expect(await allowed('key_none', { dailyLimit: 0 })).toEqual({ allowed: false, used: 0 });
    expect(await store.getUsage('key_none', DAY)).toBe(0);
  });

  it("counts a run's calls against its budget too, exactly, on two connections: all or none", async () => {
    const { store, another } = current();
    const other = await another();
    const run = { id: 'run_00000000000000000000000000000001', budget: 7 };
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? other : store).consumeQuota(KEY, charge({ dailyLimit: 100, cost: 2, run })),
      ),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(3);
    const refused = results.filter((r) => !r.allowed);
    expect(refused.every((r) => r.refused === 'run' && r.runSpent === 6)).toBe(true);
    expect(Math.max(...results.filter((r) => r.allowed).map((r) => r.runSpent ?? 0))).toBe(6);
    // Refused by the run, nothing was counted for the key either.
    expect(await store.getUsage(KEY, DAY)).toBe(6);
    expect(await other.getRunSpending(KEY, run.id)).toEqual({ greet: 6 });
  });

  it("refuses by the key's day before the run's budget, and a refund gives the run its credits back", async () => {
    const { store } = current();
    const run = { id: 'run_00000000000000000000000000000002', budget: 100 };
    expect(await store.consumeQuota(KEY, charge({ dailyLimit: 3, cost: 2, run }))).toMatchObject({
      allowed: true,
      runSpent: 2,
    });
    expect(await store.consumeQuota(KEY, charge({ dailyLimit: 3, cost: 2, run }))).toMatchObject({
      allowed: false,
      refused: 'daily',
    });
    await store.refund(KEY, {
      day: DAY,
      month: '2026-11',
      tool: 'greet',
      credits: 2,
      runId: run.id,
    });
    expect(await store.getRunSpending(KEY, run.id)).toEqual({});
    expect(await store.getUsage(KEY, DAY)).toBe(0);
    await store.consumeQuota(KEY, charge({ cost: 1, run, tool: 'doctor' }));
    expect(await store.getRunSpending(KEY, run.id)).toEqual({ doctor: 1 });
    await store.deleteRunSpending(KEY, run.id);
    expect(await store.getRunSpending(KEY, run.id)).toEqual({});
  });
});
