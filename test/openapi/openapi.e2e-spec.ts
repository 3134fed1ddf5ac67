import SwaggerParser from '@apidevtools/swagger-parser';
import { ToolRegistry } from '../../src/tools/tool.registry';
import { startApp, TestApp } from '../support/app';
import { requestBodyOf } from '../support/openapi';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    requestBodies: Record<string, { content: Record<string, { schema: Schema }> }>;
    securitySchemes: Record<string, unknown>;
  };
};
type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  additionalProperties?: boolean;
};
type Operation = {
  security?: Record<string, string[]>[];
  requestBody?: { $ref: string };
  parameters?: { name: string; in: string }[];
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { schema: Schema }> }
  >;
};

describe('OpenAPI document and docs (e2e)', () => {
  let t: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await startApp();
    const res = await t.http().get('/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body as Doc;
  });
  afterAll(() => t.close());

  const resolve = (schema: Schema): Schema =>
    schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop() as string] : schema;
  const errorSchema = (op: Operation, status: number) =>
    resolve(op.responses[String(status)].content!['application/json'].schema);

  it('is served to anyone, as JSON', async () => {
    const res = await t.http().get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('is a valid OpenAPI 3 document (swagger-parser)', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('declares bearer authentication', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it("documents every tool's request, response and errors", () => {
    const tools = t.app.get(ToolRegistry).list();
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      const op = doc.paths[tool.path]?.post;
      expect({ path: tool.path, documented: !!op }).toEqual({ path: tool.path, documented: true });
      expect(op.security).toEqual([{ bearer: [] }]);
      const body = requestBodyOf<Schema>(doc, op).schema;
      expect(body.type).toBe('object');
      // Unknown fields are rejected, and the document says so.
      expect(body.additionalProperties).toBe(false);
      expect(op.responses['200'].content!['application/json'].schema.$ref).toBeDefined();
      for (const status of [400, 401, 402, 403, 413, 415, 429, 500, 503]) {
        expect({ path: tool.path, status, documented: !!op.responses[String(status)] }).toEqual({
          path: tool.path,
          status,
          documented: true,
        });
      }
      expect(Object.keys(op.responses['401'].headers ?? {})).toContain('WWW-Authenticate');
      expect(Object.keys(op.responses['402'].headers ?? {})).toContain('Retry-After');
      expect(Object.keys(op.responses['429'].headers ?? {})).toEqual(
        expect.arrayContaining([
          'Retry-After',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'X-RateLimit-Policy',
        ]),
      );
    }
  });

  it('documents the 202 of a background call only for tools that may run in the background', () => {
    const tools = t.app.get(ToolRegistry).list();
    const never = tools.filter((tool) => tool.runtime.async === 'never').map(({ name }) => name);
    expect(never).toEqual(
      expect.arrayContaining(['greet', 'config_show', 'config_get', 'config_set']),
    );
    expect(never).not.toContain('doctor');
    for (const tool of tools) {
      const op = doc.paths[tool.path].post;
      const prefer = (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Prefer');
      const background = tool.runtime.async !== 'never';
      expect({ tool: tool.name, accepted: '202' in op.responses, prefer }).toEqual({
        tool: tool.name,
        accepted: background,
        prefer: background,
      });
    }
  });

  it('documents the 400 validation shape: detail is a list of {loc, msg, type}', () => {
    const op = doc.paths['/api/v1/services/greet'].post;
    const schema = errorSchema(op, 400);
    expect(schema.required).toEqual(['detail']);
    expect(schema.properties!.detail.type).toBe('array');
    const issue = resolve(schema.properties!.detail.items!);
    expect(issue.required?.sort()).toEqual(['loc', 'msg', 'type']);
    expect(issue.properties!.loc.type).toBe('array');
    expect(issue.properties!.msg.type).toBe('string');
    expect(issue.properties!.type.type).toBe('string');
  });

  it('documents the other errors as {detail: string}', () => {
    const op = doc.paths['/api/v1/services/greet'].post;
    for (const status of [401, 402, 403, 413, 415, 429, 500, 503]) {
      const schema = errorSchema(op, status);
      expect({ status, detail: schema.properties!.detail.type }).toEqual({
        status,
        detail: 'string',
      });
    }
  });

  it('documents discovery, keys, usage, health and metrics', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/services',
        '/api/v1/auth/me',
        '/api/v1/auth/api-keys',
        '/api/v1/auth/api-keys/{id}',
        '/api/v1/usage',
        '/health',
        '/api/v1/health',
        '/metrics',
      ]),
    );
    expect(Object.keys(doc.paths['/api/v1/services'].get.responses)).toEqual(
      expect.arrayContaining(['200', '401', '403', '429']),
    );
    expect(Object.keys(doc.paths['/api/v1/auth/api-keys'].post.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403']),
    );
    expect(Object.keys(doc.paths['/api/v1/auth/api-keys/{id}'].delete.responses)).toContain('404');
    // Open routes ask for no key (said explicitly: Redocly's recommended rules want it stated).
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(Object.keys(doc.paths['/health'].get.responses).sort()).toEqual(['200', '400', '503']);
  });

  it('serves the interactive docs as HTML, to anyone', async () => {
    const res = await t.http().get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('swagger-ui');
    const init = await t.http().get('/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('/api/v1/services/greet');
    const bundle = await t.http().get('/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
  });

  it('keeps the docs page within its content security policy', async () => {
    const res = await t.http().get('/docs');
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    // Assets would be fetched over https:// on a plain-HTTP deployment otherwise.
    expect(csp).not.toContain('upgrade-insecure-requests');
    // Every script is a same-origin file: no inline script, which script-src 'self' would block.
    const scripts = [...res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src=["']\.\//);
      expect(body.trim()).toBe('');
    }
    // Elsewhere helmet's policy is untouched.
    const api = await t.http().get('/health');
    expect(api.headers['content-security-policy']).toContain('upgrade-insecure-requests');
  });
});
