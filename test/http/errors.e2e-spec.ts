import { gzipSync } from 'node:zlib';
import { bearer, startApp, TestApp } from '../support/app';
import { BoomToolModule } from '../support/boom-tool.module';

describe('the error contract (e2e)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp({ imports: [BoomToolModule] });
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
  });
  afterAll(() => t.close());

  const greet = () => t.http().post('/api/v1/services/greet').set(bearer(key));

  it('answers {} with exactly one missing-field entry', async () => {
    const res = await greet().send({});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }],
    });
  });

  it('treats no body at all as {}', async () => {
    const res = await greet();
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('rejects unknown fields as extra_forbidden', async () => {
    const res = await greet().send({ name: 'A', colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'colour'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it('never lets a body reach a prototype', async () => {
    const res = await greet()
      .set('Content-Type', 'application/json')
      .send('{"name":"A","__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}');
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual([
      {
        loc: ['body', '__proto__'],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      },
      {
        loc: ['body', 'constructor'],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([['[1,2]'], ['"Alice"'], ['42'], ['null'], ['true']])(
    'answers the JSON body %s with dict_type',
    async (body) => {
      const res = await greet().set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }],
      });
    },
  );

  it('answers malformed JSON with json_invalid, before authentication', async () => {
    const res = await t
      .http()
      .post('/api/v1/services/greet')
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }],
    });
  });

  it('refuses other media types with 415, before authentication', async () => {
    const res = await t
      .http()
      .post('/api/v1/services/greet')
      .set('Content-Type', 'text/plain')
      .send('name=Alice');
    expect(res.status).toBe(415);
    expect(typeof res.body.detail).toBe('string');
    const form = await greet().type('form').send({ name: 'Alice' });
    expect(form.status).toBe(415);
  });

  it('reads application/*+json as JSON', async () => {
    const res = await greet()
      .set('Content-Type', 'application/vnd.api+json; charset=utf-8')
      .send(JSON.stringify({ name: 'Alice' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Hello, Alice!', times: 1 });
  });

  it('reads a gzip body, and answers one that does not match its Content-Encoding with 400', async () => {
    const zipped = await greet()
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize((body: Buffer) => body as unknown as string)
      .send(gzipSync(JSON.stringify({ name: 'Zip' })));
    expect(zipped.status).toBe(200);
    expect(zipped.body).toEqual({ message: 'Hello, Zip!', times: 1 });
    const lying = await greet()
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .send(JSON.stringify({ name: 'Zip' }));
    expect(lying.status).toBe(400);
    expect(lying.body).toEqual({
      detail: 'Malformed request body: it does not match its Content-Encoding',
    });
  });

  it('refuses a deeply nested body with 400, never a 500', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const res = await greet()
      .set('Content-Type', 'application/json')
      .send(`{"name":"a","x":${deep}}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: [
        {
          loc: ['body'],
          msg: 'Input is nested too deeply (more than 32 levels)',
          type: 'value_error',
        },
      ],
    });
  });

  it('refuses a 2 MB body with 413', async () => {
    const res = await greet().send({ name: 'x'.repeat(2 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/too large/);
  });

  it('answers a wrong method on a tool with 405 and Allow', async () => {
    const res = await t.http().get('/api/v1/services/greet').set(bearer(key));
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body).toEqual({ detail: 'Method Not Allowed' });
  });

  it('answers an unknown tool or path with 404 Not Found', async () => {
    for (const path of ['/api/v1/services/nope', '/nowhere', '/api/v2/services/greet']) {
      const res = await t.http().post(path).set(bearer(key)).send({});
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Not Found' });
    }
  });

  it('answers an unexpected failure with a bare 500 and logs it once', async () => {
    const before = t.logs.records().filter((r) => r.level === 'error').length;
    const res = await t
      .http()
      .post('/api/v1/services/boom')
      .set(bearer(key))
      .set('X-Request-Id', 'boom-request-1')
      .send({ reason: 'test' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'Internal Server Error' });
    expect(res.text).not.toMatch(/hunter2|at .*\.ts|stack/);
    const errors = t.logs
      .records()
      .filter((r) => r.level === 'error')
      .slice(before);
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toContain('hunter2');
    expect(errors[0].req).toMatchObject({ id: 'boom-request-1' });
  });

  it('keeps a well-formed X-Request-Id and replaces a malformed one', async () => {
    const kept = await greet().set('X-Request-Id', 'abc-123.X:y_z').send({ name: 'A' });
    expect(kept.headers['x-request-id']).toBe('abc-123.X:y_z');
    const replaced = await greet().set('X-Request-Id', 'has space').send({ name: 'A' });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const none = await t.http().get('/nowhere');
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
