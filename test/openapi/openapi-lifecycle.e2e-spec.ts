import SwaggerParser from '@apidevtools/swagger-parser';
import { startApp, TestApp } from '../support/app';
import { requestBodyOf } from '../support/openapi';

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; schema?: Record<string, unknown> }[];
  requestBody?: { $ref: string };
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { example?: unknown }> }
  >;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, { example?: unknown }> }> };
}

describe('OpenAPI: key lifecycle, usage, audit and idempotency (e2e)', () => {
  let t: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await startApp();
    doc = (await t.http().get('/openapi.json').expect(200)).body as Doc;
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI document', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it.each([
    ['/api/v1/auth/api-keys/{id}', 'get', 'getApiKey', ['200', '403', '404']],
    ['/api/v1/auth/api-keys/{id}', 'patch', 'updateApiKey', ['200', '400', '403', '404', '409']],
    [
      '/api/v1/auth/api-keys/{id}/rotate',
      'post',
      'rotateApiKey',
      ['201', '400', '403', '404', '409'],
    ],
    ['/api/v1/auth/api-keys/{id}/usage', 'get', 'getApiKeyUsage', ['200', '400', '403', '404']],
    ['/api/v1/audit', 'get', 'listAuditEntries', ['200', '400', '403']],
    ['/api/v1/auth/api-keys', 'get', 'listApiKeys', ['200', '400', '403']],
    ['/api/v1/usage', 'get', 'getUsage', ['200', '400']],
    ['/api/v1/auth/principals/{id}', 'delete', 'deletePrincipal', ['200', '403', '404', '409']],
  ])('documents %s %s as %s with its answers', (path, method, operationId, statuses) => {
    const op = doc.paths[path]?.[method];
    expect(op?.operationId).toBe(operationId);
    for (const status of statuses) expect(op.responses).toHaveProperty(status);
  });

  it('gives examples for the new bodies, query parameters and headers', () => {
    const schemas = doc.components.schemas;
    type Body = { properties?: Record<string, { example?: unknown }> };
    const bodyOf = (path: string, method: string) =>
      requestBodyOf<Body>(doc as never, doc.paths[path][method]).schema;
    expect(bodyOf('/api/v1/auth/api-keys/{id}', 'patch').properties?.daily_limit.example).toBe(500);
    expect(
      bodyOf('/api/v1/auth/api-keys/{id}/rotate', 'post').properties?.grace_seconds.example,
    ).toBe(3600);
    expect(schemas.AuditEntryView.properties?.details.example).toEqual({
      daily_limit: { from: 100, to: 500 },
    });
    expect(schemas.UsageView.properties?.history.example).toBeDefined();
    const rotate = doc.paths['/api/v1/auth/api-keys/{id}/rotate'].post;
    // Its own headers, and those every keyed answer carries (src/kernel/openapi/openapi.ts).
    expect(Object.keys(rotate.responses['201'].headers ?? {}).sort()).toEqual([
      'Cache-Control',
      'Location',
      'X-RateLimit-Limit',
      'X-RateLimit-Policy',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Request-Id',
    ]);
    expect(rotate.responses['409'].content?.['application/json'].example).toEqual({
      detail: 'API key is revoked',
    });
    const list = doc.paths['/api/v1/auth/api-keys'].get;
    expect(list.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual([
      'query:limit',
      'query:cursor',
      'query:external_id',
    ]);
    expect(Object.keys(list.responses['200'].headers ?? {}).sort()).toEqual([
      'Link',
      'X-RateLimit-Limit',
      'X-RateLimit-Policy',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Request-Id',
    ]);
    const audit = doc.paths['/api/v1/audit'].get;
    expect(audit.parameters?.map((p) => p.name)).toEqual(['limit', 'cursor', 'before']);
    const greet = doc.paths['/api/v1/services/greet'].post;
    expect(greet.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
    );
    expect(greet.responses['422'].content?.['application/json'].example).toEqual({
      detail: 'Idempotency-Key reused with a different request',
    });
    expect(Object.keys(greet.responses['200'].headers ?? {})).toContain('Idempotent-Replayed');
  });
});
