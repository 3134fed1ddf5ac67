import { ApiError } from '../kernel/errors/api-error';
import { narrowedRunScopes } from './run-access';
import { RUN_TOKEN_EXPIRED, runExpiry } from './run-lifetime';

describe("a run's lifetime and scopes", () => {
  it.each([
    [
      ['services:read', 'services:execute'],
      ['services:read', 'services:execute'],
    ],
    [['services:read', 'services:execute'], ['*']],
    [['services:execute:greet'], ['services:execute']],
  ])('keeps %j whole under a token holding %j', (run, held) => {
    expect(narrowedRunScopes(run, held)).toEqual(run);
  });

  it.each([
    [['services:read', 'services:execute'], ['services:execute:greet'], ['services:execute:greet']],
    [
      ['services:execute'],
      ['services:read', 'services:execute:greet', 'admin:write'],
      ['services:execute:greet'],
    ],
    [['services:execute:greet', 'services:read'], ['services:read'], ['services:read']],
    [['services:execute:greet'], ['services:execute:config_get'], []],
    [['services:execute'], ['services:*'], ['services:execute']],
  ])('narrows %j under a token holding %j to %j', (run, held, kept) => {
    expect(narrowedRunScopes(run, held)).toEqual(kept);
  });

  it('ends a run at its ttl, or at the token it may not outlive, whichever comes first', () => {
    const now = Date.parse('2031-01-01T00:00:00.000Z');
    expect(runExpiry(600, now)).toBe('2031-01-01T00:10:00.000Z');
    expect(runExpiry(600, now, '2031-01-01T00:05:00.000Z')).toBe('2031-01-01T00:05:00.000Z');
    expect(runExpiry(60, now, '2031-01-01T00:05:00.000Z')).toBe('2031-01-01T00:01:00.000Z');
    for (const until of ['2031-01-01T00:00:00.000Z', '2030-12-31T23:59:30.000Z']) {
      expect(() => runExpiry(600, now, until)).toThrow(new ApiError(403, RUN_TOKEN_EXPIRED));
    }
  });
});
