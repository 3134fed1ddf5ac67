/**
 * The OpenAPI source kind against a REST service that is not ours: FastAPI (Debian's python3 with
 * python3-fastapi and python3-uvicorn), its own OpenAPI 3.0 document read by URL, its operations
 * called for real.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenApiUpstream } from '../../src/sources/upstreams/openapi/openapi.upstream';
import { UpstreamError, type UpstreamTool } from '../../src/sources/upstreams/upstream';
import { type FastApiService, startFastApi } from '../support/upstreams/fastapi';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('An OpenAPI source on a FastAPI service', () => {
  let service: FastApiService;
  let upstream: OpenApiUpstream;
  const open = () => ({ signal: new AbortController().signal });

  function upstreamOf(overrides: Partial<ConstructorParameters<typeof OpenApiUpstream>[0]> = {}) {
    return new OpenApiUpstream({
      source: 'inventory',
      document: service.documentUrl,
      baseUrl: service.url,
      headers: { 'X-Source-Key': 'source-secret' },
      timeoutMs: 10_000,
      maxResultBytes: 64 * 1024,
      ...overrides,
    });
  }

  async function failure(call: Promise<unknown>): Promise<UpstreamError> {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    return error as UpstreamError;
  }

  beforeAll(async () => {
    service = await startFastApi();
    upstream = upstreamOf();
  });

  afterAll(async () => {
    await upstream?.close();
    await service?.stop();
  });

  describe('its tools', () => {
    let tools: Map<string, UpstreamTool>;
    let omitted: { name: string; reason: string }[];

    beforeAll(async () => {
      const list = await upstream.listTools();
      tools = new Map(list.tools.map((tool) => [tool.name, tool]));
      omitted = list.omitted;
    });

    it('are its operations by operationId', () => {
      expect([...tools.keys()].sort()).toEqual(
        [
          'broken',
          'create_item',
          'get_item',
          'guarded',
          'item_exists',
          'large',
          'missing_item',
          'redirect',
          'seen',
          'slow',
          'whoami',
        ].sort(),
      );
    });

    it('take path, query and header parameters and the JSON body as one object', () => {
      expect(tools.get('get_item')).toMatchObject({
        title: 'Read an item',
        annotations: { readOnlyHint: true },
        inputSchema: {
          type: 'object',
          additionalProperties: false,
          required: ['item_id'],
          properties: {
            item_id: { type: 'string' },
            q: { type: 'string' },
            limit: { type: 'integer', default: 10 },
            tag: { type: 'array', items: { type: 'string' } },
          },
        },
      });
      const create = tools.get('create_item')!;
      expect(create).toMatchObject({
        title: 'Create Item',
        description: 'Create Item\n\nAdds an item.',
      });
      expect(create.annotations).toBeUndefined();
      expect(create.inputSchema).toMatchObject({
        required: ['body'],
        properties: {
          body: {
            type: 'object',
            required: ['name', 'price'],
            properties: { name: { type: 'string' }, price: { type: 'number' } },
          },
        },
      });
      expect(tools.get('whoami')!.inputSchema.properties).toEqual({
        'x-request-id': { title: 'X-Request-Id', type: 'string' },
      });
      expect(tools.get('whoami')!.description).toBe('Whoami\n\nThe headers the call arrived with.');
      expect(tools.get('item_exists')!.annotations).toEqual({ readOnlyHint: true });
    });

    it('leave out, with why, operations whose names collide or whose schema is cyclic', () => {
      expect(omitted).toEqual(
        expect.arrayContaining([
          {
            name: 'clash',
            reason: 'its input names id twice (a path parameter and a query parameter)',
          },
          {
            name: 'clash_body',
            reason: 'its input names body twice (a query parameter and the request body)',
          },
          {
            name: 'plant_tree',
            reason: 'its schema is cyclic (#/components/schemas/Node contains itself)',
          },
        ]),
      );
      expect(omitted).toHaveLength(3);
    });
  });

  describe('a call', () => {
    it('sends path parameters encoded, query parameters in their style, and answers the JSON', async () => {
      const result = await upstream.callTool(
        'get_item',
        { item_id: 'a b?c#d%', q: 'x&y=z', tag: ['1', '2'] },
        open(),
      );
      expect(result).toEqual({
        kind: 'json',
        status: 200,
        body: { item_id: 'a b?c#d%', q: 'x&y=z', limit: 10, tag: ['1', '2'] },
      });
    });

    it('sends the body as JSON and passes on a 2xx status', async () => {
      const result = await upstream.callTool(
        'create_item',
        { body: { name: 'lamp', price: 12.5 } },
        open(),
      );
      expect(result).toEqual({
        kind: 'json',
        status: 201,
        body: { id: 7, item: { name: 'lamp', price: 12.5, tags: [] } },
      });
    });

    it("adds the source's headers and traceparent; a parameter never sets Authorization or Host", async () => {
      const result = await upstream.callTool(
        'whoami',
        { 'x-request-id': 'r-1', authorization: 'Bearer caller', host: 'evil.example' },
        { signal: new AbortController().signal, traceparent: TRACEPARENT },
      );
      expect(result).toEqual({
        kind: 'json',
        status: 200,
        body: {
          x_request_id: 'r-1',
          authorization: null,
          x_source_key: 'source-secret',
          traceparent: TRACEPARENT,
          host: `127.0.0.1:${service.port}`,
        },
      });
    });
  });

  describe('a failure', () => {
    it("another status is the upstream's detail", async () => {
      const error = await failure(upstream.callTool('missing_item', { item_id: 42 }, open()));
      expect(error.reason).toBe('status');
      expect(error.message).toBe('Source inventory answered 404: Item 42 not found');
    });

    it("without a detail, the first 200 characters of the upstream's body", async () => {
      const error = await failure(upstream.callTool('broken', {}, open()));
      expect(error.message).toBe(`Source inventory answered 500: ${'x'.repeat(200)}`);
    });

    it('a redirect is an answer, not followed', async () => {
      const error = await failure(upstream.callTool('redirect', {}, open()));
      expect(error.reason).toBe('status');
      expect(error.message).toBe('Source inventory answered 302: (no body)');
    });

    it('an answer over maxResultBytes is too large, unread past it', async () => {
      const fits = await upstream.callTool('large', { size: 1_000 }, open());
      expect(fits).toMatchObject({ status: 200, body: { data: 'y'.repeat(1_000) } });
      const error = await failure(upstream.callTool('large', { size: 1_000_000 }, open()));
      expect(error.reason).toBe('too_large');
      expect(error.message).toBe(`Source inventory answered more than ${64 * 1024} bytes.`);
    });

    it('a 50 MB answer without Content-Length is cut at the limit, not read whole', async () => {
      let sent = 0;
      const flood = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 'y');
        const more = () => {
          while (sent < 50 * 1024 * 1024) {
            sent += chunk.length;
            if (!response.write(chunk)) return void response.once('drain', more);
          }
          response.end();
        };
        more();
      });
      await new Promise<void>((resolve) => flood.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = flood.address() as AddressInfo;
        const flooded = upstreamOf({ baseUrl: `http://127.0.0.1:${port}` });
        await flooded.listTools();
        const error = await failure(flooded.callTool('seen', {}, open()));
        expect(error.reason).toBe('too_large');
        expect(sent).toBeLessThan(50 * 1024 * 1024);
      } finally {
        flood.closeAllConnections();
        await new Promise((resolve) => flood.close(resolve));
      }
    });

    it("the caller's abort (its deadline or cancel) ends the upstream's request", async () => {
      const caller = new AbortController();
      const call = upstream.callTool('slow', { seconds: 20, mark: 'aborted-1' }, caller);
      await waitFor(async () => (await seen()).started.includes('aborted-1'));
      caller.abort(new Error('deadline'));
      await expect(call).rejects.toThrow('deadline');
      await waitFor(async () => (await disconnected()).includes('aborted-1'));
    });

    it("the source's own timeout makes it unavailable", async () => {
      const impatient = upstreamOf({ timeoutMs: 300 });
      await impatient.listTools();
      const error = await failure(impatient.callTool('slow', { seconds: 20, mark: 't-1' }, open()));
      expect(error.reason).toBe('unavailable');
      expect(error.message).toBe('Source inventory is unavailable. Retry after 5 seconds.');
      expect(error.retryAfterSeconds).toBe(5);
      await waitFor(async () => (await disconnected()).includes('t-1'));
    });

    it('close() ends the calls in flight, and no call starts after it', async () => {
      const closing = upstreamOf();
      await closing.listTools();
      const call = closing.callTool('slow', { seconds: 20, mark: 'closed-1' }, open());
      await waitFor(async () => (await seen()).started.includes('closed-1'));
      await closing.close();
      expect((await failure(call)).reason).toBe('unavailable');
      await waitFor(async () => (await disconnected()).includes('closed-1'));
      expect((await failure(closing.callTool('seen', {}, open()))).reason).toBe('unavailable');
    });

    it('an unreachable service is unavailable, its document and its calls', async () => {
      const closed = await closedPort();
      const gone = upstreamOf({ baseUrl: `http://127.0.0.1:${closed}` });
      await gone.listTools();
      const error = await failure(gone.callTool('seen', {}, open()));
      expect(error.reason).toBe('unavailable');
      expect(error.retryAfterSeconds).toBe(5);
      const noDocument = upstreamOf({ document: `http://127.0.0.1:${closed}/openapi.json` });
      const listed = await failure(noDocument.listTools());
      expect(listed.reason).toBe('unavailable');
      expect(listed.message).toMatch(
        /^Source inventory is unavailable: Its OpenAPI document unreachable/,
      );
    });

    it('a URL the policy refuses is never fetched', async () => {
      const refused: string[] = [];
      const policed = upstreamOf({
        fetchUrl: (url) => {
          refused.push(url.pathname);
          throw new Error('The source URL is refused.');
        },
      });
      const error = await failure(policed.listTools());
      expect(error.message).toBe('Source inventory is unavailable: The source URL is refused.');
      expect(refused).toEqual(['/openapi.json']);
    });
  });

  /** The marks of the slow calls the service has seen begin, and seen their client leave. */
  async function seen(): Promise<{ started: string[]; disconnected: string[] }> {
    const response = await fetch(`${service.url}/seen`);
    return (await response.json()) as { started: string[]; disconnected: string[] };
  }

  async function disconnected(): Promise<string[]> {
    return (await seen()).disconnected;
  }
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('The condition was not met.');
}

/** A loopback port nothing listens on: one just given up by a server of our own. */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
