import { startApp, TestApp } from '../support/app';
import { listenOnLoopback, rawRequest, sendRaw } from '../support/raw-http';

/**
 * What a newcomer meets first: the service's address opened in a browser, and Swagger UI. `/`
 * answers a small page that points to the docs, the document, health and the repository's pages,
 * alike on both adapters; the OpenAPI document lists the tools first, and the OAuth metadata routes
 * only when OAuth is configured.
 */
describe('the front door (e2e)', () => {
  describe.each(['express', 'fastify'] as const)('GET / on %s', (adapter) => {
    let t: TestApp;
    let port: number;

    beforeAll(async () => {
      t = await startApp({ env: { HTTP_ADAPTER: adapter } });
      port = await listenOnLoopback(t.app);
    });
    afterAll(() => t.close());

    it('answers a small HTML page that points to /docs, /health and the docs', async () => {
      const res = await t.http().get('/');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      for (const href of ['docs', 'openapi.json', 'health']) {
        expect(res.text).toContain(`<a href="${href}">/${href}</a>`);
      }
      for (const page of ['README.md', 'docs/api.md', 'docs/adding-a-tool.md', 'docs/mcp.md']) {
        expect(res.text).toContain(`<code>${page}</code>`);
      }
      expect(res.headers['x-request-id']).toBeDefined();
    });

    it('runs no script and keeps to its content security policy', async () => {
      const res = await t.http().get('/');
      expect(res.text).not.toMatch(/<script|\son\w+=|style=/i);
      const csp = res.headers['content-security-policy'];
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("default-src 'self'");
      // A click on /docs must not be sent to https:// on a plain-HTTP deployment.
      expect(csp).not.toContain('upgrade-insecure-requests');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('answers HEAD with the same headers and no body', async () => {
      const id: [string, string][] = [['X-Request-Id', 'front-door']];
      const get = await sendRaw(port, rawRequest('GET', '/', id));
      const head = await sendRaw(port, rawRequest('HEAD', '/', id));
      expect([head.status, head.body]).toEqual([200, '']);
      const { date: _getDate, ...getHeaders } = get.headers;
      const { date: _headDate, ...headHeaders } = head.headers;
      expect(headHeaders).toEqual(getHeaders);
      expect(getHeaders['content-length']).toBe(String(Buffer.byteLength(get.body)));
      expect(get.body).toContain('<h1>Tool invocation service</h1>');
    });

    it('refuses other methods with 405 and Allow', async () => {
      const res = await t.http().post('/').send({});
      expect(res.status).toBe(405);
      expect(res.body).toEqual({ detail: 'Method Not Allowed' });
      expect(res.headers.allow).toBe('GET, HEAD');
    });
  });

  describe('the OpenAPI document', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
    });
    afterAll(() => t.close());

    it('lists the tools first, then every other tag it uses, each once', async () => {
      const doc = (await t.http().get('/openapi.json')).body as {
        tags: { name: string; description?: string }[];
        paths: Record<string, Record<string, { tags?: string[] }>>;
      };
      const names = doc.tags.map(({ name }) => name);
      expect(names[0]).toBe('tools');
      const used = new Set(
        Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags)),
      );
      expect(names.slice().sort()).toEqual([...used].sort());
      for (const tag of doc.tags) expect(tag.description).toEqual(expect.any(String));
      // Swagger UI shows the tags in the document's order.
      const init = await t.http().get('/docs/swagger-ui-init.js');
      expect(init.text).toMatch(/"tags": \[\s*\{\s*"name": "tools"/);
    });

    it('leaves the OAuth metadata routes out while OAuth is off', async () => {
      const { paths } = (await t.http().get('/openapi.json')).body as { paths: object };
      expect(
        Object.keys(paths).filter((path) => path.includes('oauth-protected-resource')),
      ).toEqual([]);
      expect((await t.http().get('/.well-known/oauth-protected-resource')).status).toBe(404);
    });

    it('lists them with OAuth on', async () => {
      const oauth = await startApp({
        env: { PUBLIC_URL: 'https://tools.example.com', OAUTH_ISSUERS: 'https://issuer.example' },
      });
      try {
        const doc = (await oauth.http().get('/openapi.json')).body as {
          tags: { name: string }[];
          paths: Record<string, Record<string, { operationId: string }>>;
        };
        expect(doc.paths['/.well-known/oauth-protected-resource'].get.operationId).toBe(
          'getProtectedResourceMetadata',
        );
        expect(doc.paths['/.well-known/oauth-protected-resource/mcp'].get.operationId).toBe(
          'getMcpProtectedResourceMetadata',
        );
        expect(JSON.stringify(doc)).not.toContain('x-oauth-only');
        expect(doc.tags.map(({ name }) => name)).toContain('oauth');
      } finally {
        await oauth.close();
      }
    });
  });
});
