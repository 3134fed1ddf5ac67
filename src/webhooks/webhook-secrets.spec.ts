import { Webhook } from 'standardwebhooks';
import { SecretBox } from '../kernel/common/secret-box';
import { newSecret, rotatedSecrets, signedHeaders } from './webhook-secrets';
import { retryDelayMs, RETRY_SCHEDULE_SECONDS } from './webhook-schedule';

describe('webhook secrets', () => {
  const KEY = 'a-long-random-text-of-the-operator-0123456789';

  it('makes secrets the Standard Webhooks libraries take', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret()).not.toBe(secret);
    const at = new Date();
    const headers = signedHeaders('msg_1', at, '{"a":1}', [secret]);
    expect(new Webhook(secret).verify('{"a":1}', headers)).toEqual({ a: 1 });
  });

  it('signs with every secret given, each signature verifying alone', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const headers = signedHeaders('msg_2', new Date(), '{}', [current, previous]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify('{}', headers)).toEqual({});
    expect(new Webhook(previous).verify('{}', headers)).toEqual({});
    expect(() => new Webhook(newSecret()).verify('{}', headers)).toThrow();
  });

  it('seals secrets at rest with SECRETS_KEY, and keeps them as they are without it', () => {
    const secret = newSecret();
    const box = new SecretBox(KEY);
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^sealed:v1:/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.seal(secret)).not.toBe(sealed);
    expect(box.open(sealed)).toBe(secret);
    expect(new SecretBox(undefined).seal(secret)).toBe(secret);
    expect(new SecretBox(undefined).open(secret)).toBe(secret);
    // Another key, or none, cannot open it.
    expect(() => new SecretBox(`${KEY}x`).open(sealed)).toThrow();
    expect(() => new SecretBox(undefined).open(sealed)).toThrow(/SECRETS_KEY/);
  });
});

describe('rotations', () => {
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 27, 8, minutes));
  const iso = (minutes: number) => at(minutes).toISOString();

  it('keeps each rotated-out secret until its own grace ends, two at most, the oldest dropped', () => {
    const first = rotatedSecrets([{ value: 's0', expires_at: null }], 's1', at(0), 3600);
    expect(first).toEqual({
      secrets: [
        { value: 's1', expires_at: null },
        { value: 's0', expires_at: iso(60) },
      ],
      previousUntil: iso(60),
    });
    const second = rotatedSecrets(first.secrets, 's2', at(10), 600);
    expect(second.secrets).toEqual([
      { value: 's2', expires_at: null },
      { value: 's1', expires_at: iso(20) },
      { value: 's0', expires_at: iso(60) },
    ]);
    // A third within both graces drops the oldest; one past its grace is dropped anyway.
    expect(rotatedSecrets(second.secrets, 's3', at(15), 60).secrets.map((s) => s.value)).toEqual([
      's3',
      's2',
      's1',
    ]);
    expect(rotatedSecrets(second.secrets, 's3', at(30), 60).secrets.map((s) => s.value)).toEqual([
      's3',
      's2',
      's0',
    ]);
  });

  it('ends every grace on a rotation without one', () => {
    const first = rotatedSecrets([{ value: 's0', expires_at: null }], 's1', at(0), 3600);
    expect(rotatedSecrets(first.secrets, 's2', at(10), 0)).toEqual({
      secrets: [{ value: 's2', expires_at: null }],
      previousUntil: null,
    });
  });
});

describe('the retry schedule', () => {
  it("waits Svix's steps, each within ±20 %, then no more", () => {
    RETRY_SCHEDULE_SECONDS.forEach((step, i) => {
      expect(retryDelayMs(i + 1, RETRY_SCHEDULE_SECONDS, undefined, () => 0)).toBe(step * 800);
      expect(retryDelayMs(i + 1, RETRY_SCHEDULE_SECONDS, undefined, () => 1)).toBe(step * 1200);
    });
    expect(RETRY_SCHEDULE_SECONDS).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(retryDelayMs(8, RETRY_SCHEDULE_SECONDS)).toBeUndefined();
  });

  it('takes Retry-After when it is sooner than the step, never later', () => {
    expect(retryDelayMs(2, RETRY_SCHEDULE_SECONDS, 60, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(1, RETRY_SCHEDULE_SECONDS, 3600, () => 0.5)).toBe(5_000);
    expect(retryDelayMs(1, RETRY_SCHEDULE_SECONDS, -5, () => 0.5)).toBe(0);
  });
});
