import { createServer, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchBounded, IssuerAnswerRefused, jsonOf } from './issuer-fetch';

/** fetchBounded against a real loopback server: each bound, and an answer within them read whole. */
describe('fetchBounded', () => {
  let server: Server;
  let url: string;
  const routes: Record<string, (res: ServerResponse) => void> = {
    '/ok': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}'),
    '/long': (res) => res.writeHead(200).end('x'.repeat(2048)),
    '/declared': (res) => {
      res.writeHead(200, { 'content-length': 1_000_000 });
      res.write('x'.repeat(10));
    },
    '/moved': (res) => res.writeHead(301, { location: '/ok?token=secret' }).end(),
    '/not-json': (res) => res.writeHead(200).end('<html>'),
    // Headers at once, then a byte now and then: the body never ends within the timeout.
    '/drip': (res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write(' '), 20);
      res.once('close', () => clearInterval(timer));
    },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const route = routes[req.url ?? ''];
      if (route) route(res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const limits = { maxBytes: 1024, timeoutMs: 2000 };

  it('reads an answer within the bounds whole', async () => {
    const answer = await fetchBounded(`${url}/ok`, limits);
    expect([answer.status, jsonOf(answer)]).toEqual([200, { a: 1 }]);
    expect(answer.headers.get('content-type')).toBe('application/json');
  });

  it.each([
    ['/long', 'an answer longer than 1024 bytes (OAUTH_ISSUER_MAX_BYTES)'],
    ['/declared', 'an answer longer than 1024 bytes (OAUTH_ISSUER_MAX_BYTES)'],
    ['/moved', 'a redirect (HTTP 301), not followed'],
  ])('refuses %s as the issuer failure it is', async (path, message) => {
    const refused = fetchBounded(`${url}${path}`, limits);
    await expect(refused).rejects.toThrow(new IssuerAnswerRefused(message));
  });

  it('refuses a body that is not JSON, and one that outlasts the timeout', async () => {
    expect(() =>
      jsonOf({ status: 200, headers: new Headers(), body: Buffer.from('<html>') }),
    ).toThrow(new IssuerAnswerRefused('an answer that is not JSON'));
    const slow = fetchBounded(`${url}/drip`, { maxBytes: 1024 * 1024, timeoutMs: 200 });
    await expect(slow).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
