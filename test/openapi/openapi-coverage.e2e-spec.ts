import type { Response } from 'supertest';
import { RouteTable } from '../../src/kernel/http/route-table';
import { bearer, startApp, TestApp } from '../support/app';
import { requestBodyOf } from '../support/openapi';

/** The headers this contract names: whenever an answer carries one, the document must say so. */
const CONTRACT_HEADERS = [
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-policy',
  'x-quota-limit',
  'x-quota-used',
  'x-quota-remaining',
  'x-quota-reset',
  'retry-after',
  'www-authenticate',
  'location',
  'link',
  'idempotent-replayed',
];

interface Operation {
  requestBody?: { $ref: string };
  responses: Record<string, { headers?: Record<string, unknown> }>;
}

/**
 * Walks the routes with real requests that draw each answer the service gives (success, 400, 401,
 * 402, 403, 404, 409, 413, 415, 429) and holds every status and contract header it saw against the
 * OpenAPI document the service serves.
 */
describe('the OpenAPI document covers what the service sends (e2e)', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, Operation>> };
  const seen: { method: string; path: string; res: Response }[] = [];

  beforeAll(async () => {
    t = await startApp({ env: { PORT: '9123', BODY_LIMIT_BYTES: '2048' } });
    doc = (await t.http().get('/openapi.json')).body as typeof doc;
    const admin = bearer(t.adminKey);
    const reader = bearer(await t.createKey({ scope_template: 'read_only' }));
    const { key: oneADay, id } = await t.createKeyWithId({
      scope_template: 'standard',
      daily_limit: 1,
    });
    const slow = bearer(await t.createKey({ scope_template: 'standard', rate_limit: 1 }));
    const record = async (method: string, path: string, res: PromiseLike<Response>) => {
      seen.push({ method, path, res: await res });
    };
    const post = (path: string, body: unknown, headers: Record<string, string> = admin) =>
      record(
        'post',
        path,
        t
          .http()
          .post(path)
          .set(headers)
          .send(body as object),
      );
    const get = (path: string, headers: Record<string, string> = admin) =>
      record('get', path, t.http().get(path).set(headers));

    for (const path of [
      '/api/v1/auth/me',
      '/api/v1/auth/api-keys',
      '/api/v1/usage',
      '/api/v1/services',
    ]) {
      await get(path);
      await get(path, {});
    }
    await get('/api/v1/auth/api-keys', reader);
    for (const path of ['/health', '/api/v1/health', '/health/live', '/health/ready', '/metrics']) {
      await get(path, {});
    }
    await post('/api/v1/auth/api-keys', { name: 'walked' });
    await post('/api/v1/auth/api-keys', { name: 'walked', plan: 'nope' });
    await post('/api/v1/auth/api-keys', { name: 'walked' }, reader);
    await record(
      'delete',
      '/api/v1/auth/api-keys/key_nope',
      t.http().delete('/api/v1/auth/api-keys/key_nope').set(admin),
    );
    await record(
      'delete',
      `/api/v1/auth/api-keys/${id}`,
      t.http().delete(`/api/v1/auth/api-keys/${id}`).set(reader),
    );
    const tools = {
      greet: { name: 'A' },
      config_show: {},
      config_get: { key: 'server.port' },
      config_set: { key: 'logging.level', value: 'info' },
      doctor: {},
    };
    for (const [tool, body] of Object.entries(tools)) {
      const path = `/api/v1/services/${tool}`;
      await post(path, body);
      await post(path, { nope: 1 });
      await post(path, body, {});
      await post(path, body, reader);
      await record(
        'post',
        path,
        t.http().post(path).set(admin).set('Content-Type', 'text/plain').send('x'),
      );
      await post(path, { pad: 'x'.repeat(4096) });
    }
    await post('/api/v1/services/config_get', { key: 'no.such' });
    await post('/api/v1/services/config_set', { key: 'server.port', value: '9000' });
    // The quota (402) and the rate limit (429).
    await post('/api/v1/services/greet', { name: 'A' }, bearer(oneADay));
    await post('/api/v1/services/greet', { name: 'A' }, bearer(oneADay));
    await get('/api/v1/auth/me', slow);
    await get('/api/v1/auth/me', slow);
  });
  afterAll(() => t.close());

  it('drew every kind of answer', () => {
    const statuses = new Set(seen.map(({ res }) => res.status));
    expect([...statuses].sort()).toEqual(
      expect.arrayContaining([200, 201, 400, 401, 402, 403, 404, 409, 413, 415, 429]),
    );
  });

  it('documents every status and contract header of every answer', () => {
    const routes = t.app.get(RouteTable);
    const missing: string[] = [];
    for (const { method, path, res } of seen) {
      const template = routes.templateFor(path)?.replace(/:(\w+)/g, '{$1}') ?? path;
      const operation = doc.paths[template]?.[method];
      const where = `${method.toUpperCase()} ${template} ${res.status}`;
      if (!operation) {
        missing.push(`${where}: no operation`);
        continue;
      }
      const response = operation.responses[String(res.status)];
      if (!response) {
        missing.push(`${where}: status not documented`);
        continue;
      }
      const documented = Object.keys(response.headers ?? {}).map((name) => name.toLowerCase());
      for (const header of CONTRACT_HEADERS) {
        if (res.headers[header] !== undefined && !documented.includes(header)) {
          missing.push(`${where}: header ${header} not documented`);
        }
      }
    }
    expect([...new Set(missing)]).toEqual([]);
  });

  it('keeps the key typed into Swagger UI across reloads', async () => {
    const init = await t.http().get('/docs/swagger-ui-init.js');
    expect(init.text).toMatch(/"persistAuthorization":\s*true/);
  });

  it('marks open routes as asking for no key, and bodies that require nothing as optional', () => {
    expect(doc.paths['/health'].get).toMatchObject({ security: [] });
    expect(doc.paths['/metrics'].get).toMatchObject({ security: [] });
    const optional = (tool: string) =>
      requestBodyOf(doc as never, doc.paths[`/api/v1/services/${tool}`].post).required;
    expect(optional('config_show')).toBe(false);
    expect(optional('doctor')).toBe(false);
    expect(optional('greet')).toBe(true);
  });
});
