import { resolvePlans } from './plans';
import { SettingsError } from './settings.error';

const burstOf = (env: Record<string, string>, file: Record<string, unknown> = {}) =>
  Object.fromEntries(
    Object.entries(resolvePlans(env, file)).map(([name, plan]) => [
      name,
      [plan.rate_limit, plan.burst],
    ]),
  );

describe('plans: rate and burst', () => {
  it('gives the built-in plans their bursts', () => {
    expect(burstOf({})).toEqual({ free: [5, 15], pro: [50, 100], unlimited: [1000, 2000] });
  });

  it('takes a burst from CONFIG_FILE and PLAN_<NAME>_BURST, the environment winning', () => {
    const file = { plans: { free: { burst: 30 }, team: { rate_limit: 10, burst: 40 } } };
    expect(burstOf({ PLAN_PRO_BURST: '500', PLAN_TEAM_BURST: '45' }, file)).toMatchObject({
      free: [5, 30],
      pro: [50, 500],
      team: [10, 45],
    });
  });

  it('gives a rate set without a burst a burst of that rate, in the file or the environment', () => {
    const file = { plans: { free: { rate_limit: 8 }, team: { daily_limit: 10 } } };
    expect(burstOf({ PLAN_PRO_RATE_LIMIT: '20' }, file)).toMatchObject({
      free: [8, 8],
      pro: [20, 20],
      team: [1, 1],
    });
    // A burst the file sets stays when the environment changes the rate.
    const own = { plans: { pro: { burst: 300 } } };
    expect(burstOf({ PLAN_PRO_RATE_LIMIT: '20' }, own)).toMatchObject({ pro: [20, 300] });
  });

  it.each([
    [{ PLAN_FREE_BURST: '0' }, {}, "PLAN_FREE_BURST must be a whole number >= 1, got '0'"],
    [{ PLAN_FREE_BURST: 'lots' }, {}, "PLAN_FREE_BURST must be a whole number >= 1, got 'lots'"],
    [
      {},
      { plans: { free: { burst: -1 } } },
      'Invalid limits.plans.free.burst: expected a whole number >= 0',
    ],
  ])('refuses a bad burst: %j %j', (env, file, message) => {
    expect(() => resolvePlans(env, file)).toThrow(SettingsError);
    expect(() => resolvePlans(env, file)).toThrow(message);
  });
});
