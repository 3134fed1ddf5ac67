import { bearer, startApp, TestApp } from '../support/app';

interface Check {
  name: string;
  status: string;
  message: string;
}

const SECRETS_KEY = 'a-long-random-text-that-seals-the-secrets-0123456789';

/** doctor's `secrets` check: a warning while secrets are stored unsealed (SECRETS_KEY unset). */
describe("doctor's secrets check (e2e)", () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((t) => t.close())));

  const started = async (env: Record<string, string> = {}) => {
    const t = await startApp({
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', SOURCE_ALLOW_PRIVATE: 'true', ...env },
    });
    apps.push(t);
    return t;
  };
  const secrets = async (t: TestApp): Promise<Check> => {
    const res = await t
      .http()
      .post('/api/v1/services/doctor')
      .set(bearer(t.adminKey))
      .send({})
      .expect(200);
    return (res.body.checks as Check[]).find(({ name }) => name === 'secrets')!;
  };
  const addWebhook = (t: TestApp) =>
    t
      .http()
      .post('/api/v1/webhooks')
      .set(bearer(t.adminKey))
      .send({ url: 'http://127.0.0.1:9/hooks', events: ['webhook.test'] })
      .expect(201);

  it('passes while nothing is stored, and warns once a webhook secret is kept unsealed', async () => {
    const t = await started();
    expect(await secrets(t)).toEqual({
      name: 'secrets',
      status: 'pass',
      message: 'No secrets stored yet; SECRETS_KEY is not set (set it before adding any)',
    });
    await addWebhook(t);
    await addWebhook(t);
    const check = await secrets(t);
    expect(check.status).toBe('warn');
    expect(check.message).toBe(
      'The signing secrets of 2 webhook endpoints are stored unsealed: SECRETS_KEY is not set (at least 32 random characters; secrets written from then on are sealed with AES-256-GCM)',
    );
    const res = await t.http().post('/api/v1/services/doctor').set(bearer(t.adminKey)).send({});
    expect(res.body.has_failures).toBe(false);
    // A source made through the API with credentials (its upstream need not answer).
    await t
      .http()
      .post('/api/v1/sources')
      .set(bearer(t.adminKey))
      .send({
        name: 'closed',
        kind: 'mcp',
        url: 'http://127.0.0.1:9/mcp',
        auth: { type: 'bearer', token: 'an-upstream-token' },
      })
      .expect(201);
    expect((await secrets(t)).message).toMatch(
      /^The signing secrets of 2 webhook endpoints and the credentials of 1 source are stored unsealed: /,
    );
  });

  it('passes with SECRETS_KEY set, whatever is stored', async () => {
    const t = await started({ SECRETS_KEY });
    await addWebhook(t);
    expect(await secrets(t)).toEqual({
      name: 'secrets',
      status: 'pass',
      message: 'Webhook secrets and source credentials are sealed at rest (SECRETS_KEY)',
    });
  });
});
