import { loadSettings, SettingsError } from './settings';

/** One line naming the variable, as start-up prints it. */
const refusal = (env: Record<string, string>) => {
  try {
    loadSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('the environment, one typed schema', () => {
  it('gives every setting its default when nothing is set', () => {
    const settings = loadSettings({});
    expect(settings).toMatchObject({
      defaultPlan: 'free',
      redisKeyPrefix: 'tis:',
      trustProxy: false,
      authFailureLimit: 100,
      authFailureWindowSeconds: 60,
      rateLimitWindowMs: 1000,
      bodyLimitBytes: 1024 * 1024,
      idempotency: { maxBytesPerKey: 8 * 1024 * 1024, maxEntriesPerKey: 10_000 },
      httpTimeouts: { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 65_000 },
      httpMaxConnections: 10_000,
      mcpAllowedOrigins: [],
      corsOrigins: [],
      httpAdapter: 'express',
      webhooks: {
        concurrency: 20,
        endpointShare: 0.25,
        timeoutMs: 15_000,
        maxPendingPerEndpoint: 10_000,
      },
    });
    expect(settings.redis).toBeUndefined();
  });

  it.each([
    [{ BODY_LIMIT_BYTES: 'abc' }, "BODY_LIMIT_BYTES must be a whole number >= 1024, got 'abc'"],
    [
      { RATE_LIMIT_WINDOW_MS: '99' },
      "RATE_LIMIT_WINDOW_MS must be a whole number >= 100, got '99'",
    ],
    [{ AUTH_FAILURE_LIMIT: '0' }, "AUTH_FAILURE_LIMIT must be a whole number >= 1, got '0'"],
    [{ PLAN_PRO_RATE_LIMIT: '-1' }, "PLAN_PRO_RATE_LIMIT must be a whole number >= 1, got '-1'"],
    [{ PLAN_FREE_DAILY_LIMIT: 'x' }, "PLAN_FREE_DAILY_LIMIT must be a whole number >= 0, got 'x'"],
    [{ HTTP_ADAPTER: 'koa' }, "HTTP_ADAPTER must be 'express' or 'fastify', got 'koa'"],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY must be true, false, a hop count'],
    [{ CORS_ORIGINS: 'https://a.b/path' }, 'CORS_ORIGINS entries must be origins like'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL must start with redis:// or rediss://'],
    [
      { REDIS_WAIT_REPLICAS: '100' },
      "REDIS_WAIT_REPLICAS must be a whole number from 0 to 99, got '100'",
    ],
    [{ DEFAULT_PLAN: 'gold' }, "DEFAULT_PLAN 'gold' is not a plan"],
    [
      { WEBHOOK_CONCURRENCY: '0' },
      "WEBHOOK_CONCURRENCY must be a whole number from 1 to 1000, got '0'",
    ],
    [
      { WEBHOOK_ENDPOINT_SHARE: '0' },
      "WEBHOOK_ENDPOINT_SHARE must be a number more than 0 and at most 1 (0.25), got '0'",
    ],
    [{ WEBHOOK_ENDPOINT_SHARE: '25%' }, 'WEBHOOK_ENDPOINT_SHARE must be a number more than 0'],
    [{ WEBHOOK_ENDPOINT_SHARE: '1.5' }, 'WEBHOOK_ENDPOINT_SHARE must be a number more than 0'],
    [
      { WEBHOOK_TIMEOUT_MS: '700000' },
      "WEBHOOK_TIMEOUT_MS must be a whole number from 100 to 600000, got '700000'",
    ],
    [
      { WEBHOOK_MAX_PENDING_PER_ENDPOINT: 'many' },
      "WEBHOOK_MAX_PENDING_PER_ENDPOINT must be a whole number from 1 to 1000000, got 'many'",
    ],
    [
      { HTTP_HEADERS_TIMEOUT_MS: '40000' },
      'HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS',
    ],
  ])('refuses %j in one line naming it', (env, message) => {
    const line = refusal(env);
    expect(line).toMatch(/^Invalid environment: /);
    expect(line).toContain(message);
    expect(line).not.toContain('\n');
  });

  it('reads what is set, typed', () => {
    const settings = loadSettings({
      HTTP_ADAPTER: ' Fastify ',
      TRUST_PROXY: '2',
      CORS_ORIGINS: 'https://App.Example.com, *',
      PLAN_FREE_DAILY_LIMIT: 'none',
      REDIS_SENTINELS: 'a:1,[::1]:2',
      WEBHOOK_CONCURRENCY: '4',
      WEBHOOK_ENDPOINT_SHARE: '.5',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_MAX_PENDING_PER_ENDPOINT: '3',
    });
    expect(settings).toMatchObject({
      webhooks: { concurrency: 4, endpointShare: 0.5, timeoutMs: 2000, maxPendingPerEndpoint: 3 },
      httpAdapter: 'fastify',
      trustProxy: 2,
      corsOrigins: ['https://app.example.com', '*'],
      redis: {
        mode: 'sentinel',
        name: 'mymaster',
        sentinels: [
          { host: 'a', port: 1 },
          { host: '::1', port: 2 },
        ],
        waitReplicas: 1,
      },
    });
    expect(settings.plans.free.daily_limit).toBeNull();
  });
});

describe('OAuth settings', () => {
  const issuer = 'https://login.example.com/realms/tools';

  it('is off without OAUTH_ISSUERS, PUBLIC_URL alone changing nothing', () => {
    expect(loadSettings({}).oauth).toBeUndefined();
    const alone = loadSettings({ PUBLIC_URL: 'https://tools.example.com/' });
    expect([alone.publicUrl, alone.oauth]).toEqual(['https://tools.example.com', undefined]);
  });

  it('takes the issuers, audiences, plan and claim, with their defaults', () => {
    expect(
      loadSettings({ PUBLIC_URL: 'https://Tools.Example.com:443', OAUTH_ISSUERS: ` ${issuer} ,` })
        .oauth,
    ).toEqual({
      publicUrl: 'https://tools.example.com',
      issuers: [issuer],
      audiences: [],
      defaultPlan: 'free',
      planClaim: undefined,
      jwksRefetchMs: 60_000,
      issuerMaxBytes: 1_048_576,
      issuerTimeoutMs: 5_000,
      principalIdleDays: 90,
      maxPrincipals: 100_000,
    });
    expect(
      loadSettings({
        PUBLIC_URL: 'https://tools.example.com',
        OAUTH_ISSUERS: `${issuer},https://login.microsoftonline.com/t/v2.0`,
        OAUTH_AUDIENCES: 'api://tools, 00000000-0000-0000-0000-000000000001',
        OAUTH_DEFAULT_PLAN: 'pro',
        OAUTH_PLAN_CLAIM: 'plan',
        OAUTH_PRINCIPAL_IDLE_DAYS: '30',
        OAUTH_MAX_PRINCIPALS: '5000',
        OAUTH_ISSUER_MAX_BYTES: '65536',
        OAUTH_ISSUER_TIMEOUT_MS: '20000',
      }).oauth,
    ).toMatchObject({
      issuers: [issuer, 'https://login.microsoftonline.com/t/v2.0'],
      audiences: ['api://tools', '00000000-0000-0000-0000-000000000001'],
      defaultPlan: 'pro',
      planClaim: 'plan',
      principalIdleDays: 30,
      maxPrincipals: 5000,
      issuerMaxBytes: 65_536,
      issuerTimeoutMs: 20_000,
    });
  });

  it.each([
    [
      { OAUTH_ISSUERS: issuer },
      'Invalid environment: OAUTH_ISSUERS needs PUBLIC_URL, the origin clients reach the service at',
    ],
    [
      { PUBLIC_URL: 'https://tools.example.com/api', OAUTH_ISSUERS: issuer },
      "Invalid environment: PUBLIC_URL must be the service's external origin, like https://tools.example.com (no path), got 'https://tools.example.com/api'",
    ],
    [
      { PUBLIC_URL: 'https://tools.example.com', OAUTH_ISSUERS: 'login.example.com' },
      "Invalid environment: OAUTH_ISSUERS entries must be issuer URLs like https://login.example.com/realms/tools, got 'login.example.com'",
    ],
    [
      {
        PUBLIC_URL: 'https://tools.example.com',
        OAUTH_ISSUERS: issuer,
        OAUTH_DEFAULT_PLAN: 'gold',
      },
      "Invalid environment: OAUTH_DEFAULT_PLAN 'gold' is not a plan",
    ],
    [
      { PUBLIC_URL: 'https://tools.example.com', OAUTH_ISSUERS: issuer, OAUTH_MAX_PRINCIPALS: '0' },
      "Invalid environment: OAUTH_MAX_PRINCIPALS must be a whole number >= 1, got '0'",
    ],
    [
      {
        PUBLIC_URL: 'https://tools.example.com',
        OAUTH_ISSUERS: issuer,
        OAUTH_PRINCIPAL_IDLE_DAYS: 'never',
      },
      "Invalid environment: OAUTH_PRINCIPAL_IDLE_DAYS must be a whole number >= 1, got 'never'",
    ],
  ])('stops the start on %j', (env, message) => {
    expect(refusal(env)).toBe(message);
  });
});
