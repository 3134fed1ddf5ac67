/**
 * What an OpenAPI source makes of its document: a 3.1 file (calls to the FastAPI service it
 * describes), 3.0's own keywords, and hostile documents (huge, cyclic, exponential, deep), each
 * bounded and named.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_DOCUMENT_BYTES } from '../../src/sources/upstreams/openapi/openapi-document';
import { OpenApiUpstream } from '../../src/sources/upstreams/openapi/openapi.upstream';
import { UpstreamError } from '../../src/sources/upstreams/upstream';
import { type FastApiService, startFastApi } from '../support/upstreams/fastapi';

const FILE_31 = join(__dirname, '..', 'support', 'upstreams', 'inventory-3.1.yaml');

describe("An OpenAPI source's document", () => {
  let service: FastApiService;
  let dir: string;

  beforeAll(async () => {
    service = await startFastApi();
    dir = mkdtempSync(join(tmpdir(), 'openapi-documents-'));
  });

  afterAll(async () => {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function upstreamOf(document: string): OpenApiUpstream {
    return new OpenApiUpstream({
      source: 'inventory',
      document,
      baseUrl: service.url,
      headers: {},
      timeoutMs: 10_000,
      maxResultBytes: 1024 * 1024,
    });
  }

  /** A document written to a file of its own. */
  function file(name: string, document: unknown): string {
    const path = join(dir, name);
    writeFileSync(path, typeof document === 'string' ? document : JSON.stringify(document));
    return path;
  }

  function openapi30(paths: unknown, schemas: unknown = {}) {
    return { openapi: '3.0.3', info: { title: 't', version: '1' }, paths, components: { schemas } };
  }

  async function listFailure(document: string): Promise<UpstreamError> {
    const error = await upstreamOf(document)
      .listTools()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).reason).toBe('unavailable');
    return error as UpstreamError;
  }

  describe('an OpenAPI 3.1 document from a file', () => {
    const upstream = () => upstreamOf(FILE_31);

    it("lists its operations' tools with their 3.1 schemas", async () => {
      const { tools } = await upstream().listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['read_item', 'item_exists', 'add_item']);
      expect(tools[0]).toEqual({
        name: 'read_item',
        title: 'Read an item',
        description: 'Read an item\n\nOne item by its id.',
        annotations: { readOnlyHint: true },
        inputSchema: {
          type: 'object',
          additionalProperties: false,
          required: ['item_id'],
          properties: {
            item_id: { type: 'string', minLength: 1 },
            q: { type: ['string', 'null'], description: 'A free text.' },
            tag: { type: 'array', items: { type: 'string' } },
          },
        },
      });
      expect(tools[2].inputSchema).toEqual({
        type: 'object',
        additionalProperties: false,
        required: ['body'],
        properties: {
          body: {
            description: 'The new item.',
            examples: [{ name: 'lamp', price: 1 }],
            allOf: [
              {
                type: 'object',
                required: ['name', 'price'],
                properties: {
                  name: { type: 'string' },
                  price: { type: 'number', exclusiveMinimum: 0 },
                  example: {
                    type: 'string',
                    description: 'A property that is named like a keyword.',
                  },
                },
              },
            ],
          },
        },
      });
    });

    it('leaves out, with why, what it cannot serve', async () => {
      const { omitted } = await upstream().listTools();
      expect(omitted).toEqual([
        { name: 'GET /items', reason: 'it has no operationId' },
        { name: 'send_form', reason: 'its required request body is not JSON' },
        {
          name: 'with_cookie',
          reason: 'its required cookie parameter session is not sent by the service',
        },
        {
          name: 'elsewhere',
          reason: 'an external $ref (common.yaml#/components/parameters/Page) is not read',
        },
        { name: 'dangling', reason: 'its $ref #/components/schemas/Page points at nothing' },
        { name: 'read_item', reason: 'another operation has the same operationId' },
      ]);
    });

    it('calls the service it describes', async () => {
      const result = await upstream().callTool(
        'read_item',
        { item_id: 'lamp', q: 'bright', tag: ['a'] },
        { signal: new AbortController().signal },
      );
      expect(result).toEqual({
        kind: 'json',
        status: 200,
        body: { item_id: 'lamp', q: 'bright', limit: 10, tag: ['a'] },
      });
    });
  });

  it("reads 3.0's nullable and boolean exclusive bounds as JSON Schema says them", async () => {
    const document = openapi30(
      {
        '/n': {
          get: {
            operationId: 'n',
            parameters: [{ name: 'n', in: 'query', schema: { $ref: '#/components/schemas/N' } }],
          },
        },
      },
      { N: { type: 'integer', nullable: true, minimum: 0, exclusiveMinimum: true, example: 3 } },
    );
    const { tools } = await upstreamOf(file('nullable.json', document)).listTools();
    expect(tools[0].inputSchema.properties).toEqual({
      n: { type: ['integer', 'null'], exclusiveMinimum: 0 },
    });
  });

  describe('a hostile document is bounded', () => {
    it('a document over the limit is refused, from a file and from a URL unread past it', async () => {
      const huge = `{"openapi":"3.0.0","paths":{},"x":"${'z'.repeat(MAX_DOCUMENT_BYTES)}"}`;
      const fromFile = await listFailure(file('huge.json', huge));
      expect(fromFile.message).toBe(
        `Source inventory is unavailable: Its OpenAPI document is larger than ${MAX_DOCUMENT_BYTES} bytes.`,
      );
      let sent = 0;
      const server = await serving((response) => {
        // Chunked, no Content-Length: the limit is found while reading.
        const chunk = Buffer.alloc(1024 * 1024, 'z');
        const more = () => {
          while (sent < 4 * MAX_DOCUMENT_BYTES) {
            sent += chunk.length;
            if (!response.write(chunk)) return void response.once('drain', more);
          }
          response.end();
        };
        more();
      });
      try {
        const fromUrl = await listFailure(`http://127.0.0.1:${port(server)}/openapi.json`);
        expect(fromUrl.message).toBe(fromFile.message);
        expect(sent).toBeLessThan(4 * MAX_DOCUMENT_BYTES);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('a redirect to its document is not followed', async () => {
      const server = await serving((response) => {
        response.writeHead(302, { location: service.documentUrl }).end();
      });
      try {
        const error = await listFailure(`http://127.0.0.1:${port(server)}/openapi.json`);
        expect(error.message).toBe(
          'Source inventory is unavailable: Its OpenAPI document answered a redirect (HTTP 302), not followed.',
        );
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('what is not an OpenAPI 3 document is refused', async () => {
      const swagger = await listFailure(file('swagger.json', { swagger: '2.0', paths: {} }));
      expect(swagger.message).toBe(
        'Source inventory is unavailable: Its OpenAPI document is not an OpenAPI 3.0 or 3.1 document.',
      );
      // The "billion laughs": each level nine aliases of the one before.
      const levels = ['l0: &l0 [x, x, x, x, x, x, x, x, x]'];
      for (let i = 1; i < 12; i++)
        levels.push(
          `l${i}: &l${i} [${Array(9)
            .fill(`*l${i - 1}`)
            .join(', ')}]`,
        );
      const bomb = levels;
      const yaml = await listFailure(file('bomb.yaml', bomb.join('\n')));
      expect(yaml.message).toMatch(
        /^Source inventory is unavailable: Its OpenAPI document cannot be parsed as JSON or YAML/,
      );
    });

    it('cyclic, exponential and deep schemas leave their operations out, the others served', async () => {
      const schemas: Record<string, unknown> = {
        A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } },
        B: { type: 'array', items: { $ref: '#/components/schemas/A' } },
        E0: { type: 'string' },
      };
      // E20 is 2^20 strings once expanded (a million nodes, 40 levels deep): more than a tool may hold.
      for (let i = 1; i <= 20; i++) {
        schemas[`E${i}`] = {
          allOf: [
            { $ref: `#/components/schemas/E${i - 1}` },
            { $ref: `#/components/schemas/E${i - 1}` },
          ],
        };
      }
      // Nested 5,000 deep: written as text, as JSON.stringify could not.
      const deep = `${'{"type":"object","properties":{"d":'.repeat(5_000)}{"type":"string"}${'}}'.repeat(5_000)}`;
      schemas.Deep = 'DEEP';
      const body = (name: string) => ({
        requestBody: {
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
        },
      });
      const paths: Record<string, unknown> = {
        '/ok': { get: { operationId: 'ok' } },
        '/cyclic': { post: { operationId: 'cyclic', ...body('A') } },
        '/deep': { post: { operationId: 'deep', ...body('Deep') } },
      };
      // Many operations on the exponential schema: the list's own budget ends them early.
      for (let i = 0; i < 200; i++)
        paths[`/e${i}`] = { post: { operationId: `e${i}`, ...body('E20') } };
      const { tools, omitted } = await upstreamOf(
        file('hostile.json', JSON.stringify(openapi30(paths, schemas)).replace('"DEEP"', deep)),
      ).listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['ok']);
      const reasons = new Map(omitted.map((entry) => [entry.name, entry.reason]));
      expect(reasons.get('cyclic')).toBe(
        'its schema is cyclic (#/components/schemas/A contains itself)',
      );
      expect(reasons.get('deep')).toBe('its input schema is nested deeper than 64 levels');
      expect(reasons.get('e0')).toBe(
        'its input schema is larger than 10000 nodes once its $refs are resolved',
      );
      expect(reasons.get('e199')).toBe("the document's input schemas pass 500000 nodes in all");
      expect(omitted).toHaveLength(202);
    });

    it('a chain of $refs that loops is named, not followed for ever', async () => {
      const document = {
        ...openapi30({
          '/p': { get: { operationId: 'p', parameters: [{ $ref: '#/components/parameters/A' }] } },
        }),
        components: {
          parameters: {
            A: { $ref: '#/components/parameters/B' },
            B: { $ref: '#/components/parameters/A' },
          },
        },
      };
      const { omitted } = await upstreamOf(file('loop.json', document)).listTools();
      expect(omitted).toEqual([
        { name: 'p', reason: 'its $ref #/components/parameters/A never ends' },
      ]);
    });
  });
});

async function serving(answer: (response: ServerResponse) => void): Promise<Server> {
  const server = createServer((_request, response) => answer(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function port(server: Server): number {
  return (server.address() as AddressInfo).port;
}
