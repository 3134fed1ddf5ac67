import { bearer, startApp, TestApp } from '../support/app';
import { requestBodyOf } from '../support/openapi';
import { metricValue } from '../support/metrics';
import { SubscribeModule } from '../support/raw-dto-tool.module';
import { WordCountModule } from '../support/sample-tool.module';

/**
 * README "Adding a tool": a tool written in one file (test/support/sample-tool.module.ts), mounted
 * beside the server's modules and nothing else, gets everything the shipped tools get.
 */
describe('adding a tool: word_count from one file (e2e)', () => {
  let t: TestApp;
  let key: string;

  // Calls are metered and counted: each test gets an app and a key of its own.
  beforeEach(async () => {
    t = await startApp({ imports: [WordCountModule] });
    key = await t.createKey({ scope_template: 'standard', plan: 'pro', daily_limit: 3 });
  });
  afterEach(() => t.close());

  const call = (body: unknown, k: string | null = key) => {
    const req = t.http().post('/api/v1/services/word_count');
    return (k ? req.set(bearer(k)) : req).send(body as object);
  };

  it('answers at POST /api/v1/services/word_count', async () => {
    const res = await call({ text: 'To be or not to be', distinct: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ words: 4 });
  });

  it('needs a key (401)', async () => {
    const res = await call({ text: 'x' }, null);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('needs services:execute (403)', async () => {
    const reader = await t.createKey({ scope_template: 'read_only' });
    const res = await call({ text: 'x' }, reader);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Insufficient permissions for this operation.' });
  });

  it('validates its input strictly, in the pydantic shape (400)', async () => {
    const res = await call({ distinct: 'yes', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'text'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'distinct'], msg: 'Input should be a valid boolean', type: 'bool_type' },
        { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      ]),
    );
    expect(res.body.detail).toHaveLength(3);
  });

  it('is metered by the daily quota, then refused with 402', async () => {
    const usage = async () => (await t.http().get('/api/v1/usage').set(bearer(key))).body.used;
    expect((await call({ text: 'To be or not to be' })).status).toBe(200);
    expect((await call({ distinct: 'yes', extra: 1 })).status).toBe(400);
    // The two calls above got past authentication and scope: they counted, valid or not.
    expect(await usage()).toBe(2);
    expect((await call({ text: 'one more' })).status).toBe(200);
    expect(await usage()).toBe(3);
    const refused = await call({ text: 'too many' });
    expect(refused.status).toBe(402);
    expect(refused.body.detail).toMatch(
      /^Daily request limit exceeded \(3\/3\)\. Resets in \d+h \d+m\.$/,
    );
    expect(await usage()).toBe(3);
  });

  it('is listed by discovery with its schemas', async () => {
    const res = await t.http().get('/api/v1/services').set(bearer(key));
    const tool = res.body.tools.find((x: { name: string }) => x.name === 'word_count');
    expect(tool).toEqual({
      name: 'word_count',
      description: 'Count the words of a text.',
      method: 'POST',
      path: '/api/v1/services/word_count',
      scope: 'services:execute:word_count',
      cost: 1,
      input_schema: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: {
          text: expect.objectContaining({ type: 'string', minLength: 1, maxLength: 10000 }),
          distinct: expect.objectContaining({ type: 'boolean', default: false }),
        },
      },
      output_schema: expect.objectContaining({
        type: 'object',
        required: ['words'],
        properties: { words: expect.objectContaining({ type: 'integer' }) },
      }),
    });
  });

  it('is in the OpenAPI document, with its errors', async () => {
    const doc = (await t.http().get('/openapi.json')).body;
    const op = doc.paths['/api/v1/services/word_count'].post;
    expect(op.operationId).toBe('word_count');
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(requestBodyOf(doc, op)).toMatchObject({
      name: 'WordCountInput',
      required: true,
      schema: { required: ['text'], additionalProperties: false },
    });
    expect(Object.keys(op.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '402', '403', '429']),
    );
  });

  it('is counted in the metrics', async () => {
    expect((await call({ text: 'one' })).status).toBe(200);
    expect((await call({ text: 'two' })).status).toBe(200);
    expect((await call({ text: '' })).status).toBe(400);
    expect((await call({ text: 'too many' })).status).toBe(402);
    const text = (await t.http().get('/metrics')).text;
    expect(metricValue(text, 'tool_calls_total', { tool: 'word_count', outcome: 'success' })).toBe(
      2,
    );
    expect(metricValue(text, 'quota_rejections_total', { tool: 'word_count' })).toBe(1);
  });
});

describe('adding a tool whose DTO has raw class-validator decorators (e2e)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp({ imports: [SubscribeModule] });
    key = await t.createKey({ scope_template: 'standard' });
  });
  afterAll(() => t.close());

  const subscribe = (body: object) =>
    t.http().post('/api/v1/services/subscribe').set(bearer(key)).send(body);

  it('is validated by class-validator, in the same shape, with its stated defaults', async () => {
    const ok = await subscribe({ email: 'ada@example.com' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ email: 'ada@example.com', weekly: true });
    const bad = await subscribe({ email: 'ada', weekly: 'no', x: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toEqual([
      { loc: ['body', 'email'], msg: 'Value error, not an email address', type: 'value_error' },
      { loc: ['body', 'weekly'], msg: 'Input should be a valid boolean', type: 'bool_type' },
      { loc: ['body', 'x'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });
});
