import { bearer, startApp, TestApp } from '../support/app';

describe('greet (e2e)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp();
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
  });
  afterAll(() => t.close());

  const greet = (body: unknown) =>
    t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(key))
      .send(body as object);

  it('shouts the greeting in upper case', async () => {
    const res = await greet({ name: 'Alice', shout: true });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ message: 'HELLO, ALICE!', times: 1 });
  });

  it('applies the defaults: no shout, times 1', async () => {
    const res = await greet({ name: 'Bob' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Hello, Bob!', times: 1 });
  });

  it('echoes times without repeating the text', async () => {
    const res = await greet({ name: 'Bob', times: 100 });
    expect(res.body).toEqual({ message: 'Hello, Bob!', times: 100 });
  });

  it.each([
    [
      { name: 'A', times: 0 },
      'times',
      'greater_than_equal',
      'Input should be greater than or equal to 1',
    ],
    [
      { name: 'A', times: 101 },
      'times',
      'less_than_equal',
      'Input should be less than or equal to 100',
    ],
    [{ name: 'A', times: 1.5 }, 'times', 'int_type', 'Input should be a valid integer'],
    [{ name: '' }, 'name', 'string_too_short', 'String should have at least 1 character'],
    [
      { name: 'x'.repeat(201) },
      'name',
      'string_too_long',
      'String should have at most 200 characters',
    ],
    [{ name: 'A', shout: 'true' }, 'shout', 'bool_type', 'Input should be a valid boolean'],
    [{ name: 'A', times: '3' }, 'times', 'int_type', 'Input should be a valid integer'],
    [{ name: 7 }, 'name', 'string_type', 'Input should be a valid string'],
    [{ name: null }, 'name', 'string_type', 'Input should be a valid string'],
    [{ name: 'A', shout: null }, 'shout', 'bool_type', 'Input should be a valid boolean'],
  ])('rejects %j with one %s entry', async (body, field, type, msg) => {
    const res = await greet(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: [{ loc: ['body', field], msg, type }] });
  });

  it('accepts the bounds of times and name', async () => {
    expect((await greet({ name: 'x'.repeat(200), times: 1 })).status).toBe(200);
    expect((await greet({ name: 'x', times: 100 })).body.times).toBe(100);
  });
});
