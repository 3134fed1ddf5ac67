import Fastify, { FastifyInstance } from 'fastify';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fastifyPlatform } from './fastify';

/** One GET of the server, its status, raw header list and body. */
function get(server: FastifyInstance, path: string) {
  const { port } = server.server.address() as AddressInfo;
  return new Promise<{ status?: number; rawHeaders: string[]; body: string }>((done, fail) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode, rawHeaders: res.rawHeaders, body }));
    })
      .on('error', fail)
      .end();
  });
}

/** The value of a header in a raw list, by its name exactly as sent. */
const sent = (raw: string[], name: string) => raw[raw.indexOf(name) + 1];

describe('fastifyPlatform', () => {
  let server: FastifyInstance;

  beforeAll(async () => {
    server = Fastify();
    server.get('/taken', (req, reply) => {
      // Set through Fastify, through the platform, and on the Node response: all three go out.
      void reply.header('X-Held', 'by-fastify');
      fastifyPlatform.setHeader(reply, 'X-Quota-Cost', 2);
      reply.raw.setHeader('X-Raw', 'by-node');
      const { res } = fastifyPlatform.takeOver(req, reply);
      res.statusCode = 200;
      res.end('taken');
    });
    server.get('/sent', (req, reply) => {
      fastifyPlatform.setHeader(reply, 'X-RateLimit-Limit', 60);
      void reply.send({ ok: true });
    });
    await server.listen({ host: '127.0.0.1', port: 0 });
  });

  afterAll(() => server.close());

  it('carries the headers Fastify holds onto an answer taken over, beside the Node ones', async () => {
    const answer = await get(server, '/taken');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('taken');
    expect(sent(answer.rawHeaders, 'x-held')).toBe('by-fastify');
    expect(sent(answer.rawHeaders, 'x-quota-cost')).toBe('2');
    expect(sent(answer.rawHeaders, 'X-Raw')).toBe('by-node');
  });

  it('sends the headers it sets in lower case, as Fastify itself does', async () => {
    const answer = await get(server, '/sent');
    expect(answer.body).toBe('{"ok":true}');
    expect(sent(answer.rawHeaders, 'x-ratelimit-limit')).toBe('60');
    expect(answer.rawHeaders).not.toContain('X-RateLimit-Limit');
  });
});
