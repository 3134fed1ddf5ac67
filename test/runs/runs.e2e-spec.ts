import { bearer, startApp, TestApp } from '../support/app';

/** Runs over REST: a budget and a token of their own, the parent's limits and scopes beside. */
describe('runs (e2e)', () => {
  let app: TestApp;

  beforeEach(async () => {
    app = await startApp();
  });
  afterEach(() => app.close());

  const greet = (token: string, name = 'run') =>
    app.http().post('/api/v1/services/greet').set(bearer(token)).send({ name });

  async function newRun(
    parent: string,
    body: Record<string, unknown> = { budget: 3 },
  ): Promise<{ id: string; token: string; body: Record<string, unknown> }> {
    const res = await app.http().post('/api/v1/runs').set(bearer(parent)).send(body).expect(201);
    return { id: res.body.id as string, token: res.body.token as string, body: res.body };
  }

  it('makes a run whose token calls tools within its budget, then 402 with the run text', async () => {
    const parent = await app.createKeyWithId({ rate_limit: 1000 });
    const created = await newRun(parent.key, { budget: 2, label: 'triage', metadata: { t: 'OPS-1' } });
    expect(created.token).toMatch(/^sk_run_[0-9a-f]{64}$/);
    expect(created.body).toMatchObject({
      budget: 2,
      spent: 0,
      remaining: 2,
      status: 'active',
      label: 'triage',
      metadata: { t: 'OPS-1' },
      parent: { kind: 'key', id: parent.id },
      scopes: ['services:read', 'services:execute'],
    });

    const first = await greet(created.token).expect(200);
    expect(first.headers['x-run-budget-remaining']).toBe('1');
    await greet(created.token).expect(200);
    const refused = await greet(created.token).expect(402);
    expect(refused.body).toEqual({ detail: 'Run budget exhausted (2/2).' });
    expect(refused.headers['retry-after']).toBeUndefined();

    const shown = await app.http().get(`/api/v1/runs/${created.id}`).set(bearer(parent.key));
    expect(shown.body).toMatchObject({ spent: 2, remaining: 0, spent_by_tool: { greet: 2 } });
    // The parent's own usage counts the run's calls.
    const usage = await app.http().get('/api/v1/auth/me').set(bearer(parent.key));
    expect(usage.status).toBe(200);
  });

  it('refuses the token at once after DELETE, and never lets a run make a run or reach admin routes', async () => {
    const parent = await app.createKeyWithId({ scopes: ['*'] });
    const run = await newRun(parent.key);
    await app.http().post('/api/v1/runs').set(bearer(run.token)).send({ budget: 1 }).expect(403);
    await app.http().get('/api/v1/auth/api-keys').set(bearer(run.token)).expect(403);
    await app.http().get('/api/v1/ledger').set(bearer(run.token)).expect(403);
    const ended = await app.http().delete(`/api/v1/runs/${run.id}`).set(bearer(parent.key));
    expect(ended.body).toMatchObject({ status: 'ended', ended_reason: 'deleted' });
    const refused = await greet(run.token).expect(401);
    expect(refused.body).toEqual({ detail: 'Run has ended.' });
  });

  it('ends with its parent: a revoked key takes its runs with it', async () => {
    const parent = await app.createKeyWithId();
    const run = await newRun(parent.key);
    await greet(run.token).expect(200);
    await app.http().delete(`/api/v1/auth/api-keys/${parent.id}`).set(bearer(app.adminKey));
    await greet(run.token).expect(401);
    const shown = await app.http().get(`/api/v1/runs/${run.id}`).set(bearer(app.adminKey));
    expect(shown.body).toMatchObject({ status: 'ended', ended_reason: 'parent_revoked' });
  });

  it('writes a ledger entry per counted call, and none for a refusal', async () => {
    const parent = await app.createKeyWithId();
    const run = await newRun(parent.key, { budget: 1 });
    await greet(run.token).expect(200);
    await greet(run.token).expect(402);
    await greet(parent.key).set('Idempotency-Key', 'k1').expect(200);
    await greet(parent.key).set('Idempotency-Key', 'k1').expect(200);
    const page = await app
      .http()
      .get(`/api/v1/ledger?subject=key:${parent.id}`)
      .set(bearer(app.adminKey))
      .expect(200);
    expect(page.body.entries).toHaveLength(2);
    expect(page.body.entries[0]).toMatchObject({
      subject: { kind: 'key', id: parent.id, external_id: null },
      run_id: run.id,
      tool: 'greet',
      credits: 1,
      kind: 'charge',
      transport: 'rest',
    });
    expect(page.body.entries[1]).toMatchObject({ run_id: null, idempotency_key: 'k1' });
    const csv = await app
      .http()
      .get(`/api/v1/ledger?subject=key:${parent.id}`)
      .set(bearer(app.adminKey))
      .set('Accept', 'text/csv')
      .expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.text.split('\r\n')).toHaveLength(4);
  });
});
