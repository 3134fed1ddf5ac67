import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  postToTarget,
  resolveTarget,
  systemResolver,
  urlRefusal,
  type Resolver,
} from './webhook-target';

const PRIVATE_HINT = '(WEBHOOK_ALLOW_PRIVATE=true allows private and loopback receivers)';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP server on 127.0.0.1 that records what reached it. */
interface Loopback {
  port: number;
  requests: Seen[];
  connections: number;
}

const servers: Server[] = [];

/** Starts a loopback server; `answer` runs once the request's body has been read. */
async function startServer(
  answer: (response: ServerResponse, request: IncomingMessage) => void,
): Promise<Loopback> {
  const loopback: Loopback = { port: 0, requests: [], connections: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      loopback.requests.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body,
      });
      answer(response, request);
    });
  });
  server.on('connection', () => (loopback.connections += 1));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  loopback.port = (server.address() as AddressInfo).port;
  return loopback;
}

afterEach(async () => {
  const closing = servers.splice(0).map(
    (server) =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  await Promise.all(closing);
});

/** A resolver answering from a table, counting its calls. */
function resolverOf(table: Record<string, string[]>) {
  return jest.fn<ReturnType<Resolver>, Parameters<Resolver>>((hostname) => {
    const addresses = table[hostname];
    if (!addresses) return Promise.reject(new Error(`getaddrinfo ENOTFOUND ${hostname}`));
    return Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const),
    );
  });
}

const toLoopback = () => resolverOf({ 'hooks.example': ['127.0.0.1'] });
const withSwitch = (resolver: Resolver, timeoutMs = 5_000) => ({
  allowPrivate: true,
  resolver,
  timeoutMs,
});

describe('urlRefusal', () => {
  it('refuses http:// unless the operator allows private receivers', () => {
    expect(urlRefusal('http://example.com/hook', false)).toBe(
      'Webhook URLs must use https:// ' +
        '(WEBHOOK_ALLOW_PRIVATE=true allows http:// for internal receivers).',
    );
    expect(urlRefusal('http://example.com/hook', true)).toBeUndefined();
    expect(urlRefusal('ftp://example.com/hook', true)).toMatch(/must use https:\/\/ or http:\/\//);
  });

  it.each([false, true])('refuses credentials in the URL (allowPrivate %s)', (allowPrivate) => {
    expect(urlRefusal('https://user:pass@example.com/hook', allowPrivate)).toMatch(/credentials/);
    expect(urlRefusal('https://:pass@example.com/hook', allowPrivate)).toMatch(/credentials/);
  });

  it('refuses the URL a view shows, its query string hidden as ?…', () => {
    for (const url of ['https://hooks.example.com/x?…', 'https://hooks.example.com/x?%E2%80%A6']) {
      expect(urlRefusal(url, false)).toBe(
        "The webhook URL's query string is shown as ?… and never returned: send the whole URL, its query string included.",
      );
    }
    expect(urlRefusal('https://hooks.example.com/x?token=…x', false)).toBeUndefined();
  });

  it('refuses a URL past 2,048 characters and one that is not a URL', () => {
    const base = 'https://example.com/';
    expect(urlRefusal(base + 'a'.repeat(2_048 - base.length), false)).toBeUndefined();
    expect(urlRefusal(base + 'a'.repeat(2_049 - base.length), false)).toMatch(/2,048/);
    expect(urlRefusal('not a url', false)).toMatch(/not a valid absolute URL/);
  });

  it('accepts a public https:// URL on any port', () => {
    expect(urlRefusal('https://example.com/hook', false)).toBeUndefined();
    expect(urlRefusal('https://example.com:8443/hook?a=1', false)).toBeUndefined();
    expect(urlRefusal('https://93.184.215.14/hook', false)).toBeUndefined();
    expect(urlRefusal('https://[2606:4700::1]/hook', false)).toBeUndefined();
  });

  it('says why a loopback literal is refused', () => {
    expect(urlRefusal('https://127.0.0.1/', false)).toBe(
      `The webhook URL's address 127.0.0.1 is a loopback address: not allowed ${PRIVATE_HINT}.`,
    );
  });

  it.each([
    ['https://127.0.0.1/', /127\.0\.0\.1 is a loopback address/],
    ['https://0x7f.1/', /127\.0\.0\.1 is a loopback address/],
    ['https://[::1]/', /::1 is a loopback address/],
    ['https://[::ffff:127.0.0.1]/', /is a loopback address/],
    ['https://10.0.0.1/', /10\.0\.0\.1 is a private address/],
    ['https://192.168.1.10/', /a private address/],
    ['https://[fc00::1]/', /a private \(unique local\) address/],
    ['https://100.64.0.1/', /100\.64\.0\.1 is a carrier-grade NAT address/],
  ])('refuses %s without the switch, allows it with', (url, reason) => {
    expect(urlRefusal(url, false)).toMatch(reason);
    expect(urlRefusal(url, false)).toContain(PRIVATE_HINT);
    expect(urlRefusal(url, true)).toBeUndefined();
  });

  it.each([
    ['https://169.254.169.254/', /a cloud metadata address: never allowed/],
    ['https://[::ffff:169.254.169.254]/', /a cloud metadata address/],
    ['https://[fd00:ec2::254]/', /a cloud metadata address/],
    ['https://100.100.100.200/', /a cloud metadata address/],
    ['https://169.254.1.1/', /a link-local address: never allowed/],
    ['https://[fe80::1]/', /a link-local address/],
    ['https://0.0.0.0/', /an unspecified address/],
    ['https://[::]/', /an unspecified address/],
    ['https://224.0.0.1/', /a multicast address/],
    ['https://[ff02::1]/', /a multicast address/],
    ['https://255.255.255.255/', /a broadcast address/],
    ['https://240.0.0.1/', /a special-purpose address \(reserved\)/],
    ['https://[::7f00:1]/', /an IPv4-compatible IPv6 address/],
    ['https://[64:ff9b::7f00:1]/', /a special-purpose address/],
  ])('refuses %s even with the switch', (url, reason) => {
    expect(urlRefusal(url, true)).toMatch(reason);
    expect(urlRefusal(url, false)).toMatch(reason);
  });
});

describe('resolveTarget', () => {
  it('refuses a name that resolves to loopback, and says so', async () => {
    const resolver = toLoopback();
    await expect(resolveTarget('https://hooks.example/x', false, resolver)).resolves.toEqual({
      ok: false,
      refusal:
        "The webhook URL's host hooks.example resolves to 127.0.0.1, " +
        `a loopback address: not allowed ${PRIVATE_HINT}.`,
    });
    expect(resolver).toHaveBeenCalledWith('hooks.example');
  });

  it('checks every address: one private among public ones is refused', async () => {
    const v4 = resolverOf({ 'hooks.example': ['93.184.215.14', '10.1.2.3'] });
    const v6 = resolverOf({ 'hooks.example': ['2606:4700::1', '::1'] });
    const first = await resolveTarget('https://hooks.example/', false, v4);
    const second = await resolveTarget('https://hooks.example/', false, v6);
    expect(first).toEqual({ ok: false, refusal: expect.stringContaining('resolves to 10.1.2.3') });
    expect(second).toEqual({ ok: false, refusal: expect.stringContaining('resolves to ::1') });
  });

  it('returns the first address of a public name', async () => {
    const resolver = resolverOf({ 'hooks.example': ['93.184.215.14', '2606:4700::1'] });
    await expect(resolveTarget('https://hooks.example/', false, resolver)).resolves.toEqual({
      ok: true,
      address: '93.184.215.14',
      family: 4,
    });
  });

  it.each(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', 'fe80::1'])(
    'refuses a name resolving to %s even with the switch',
    async (address) => {
      const resolver = resolverOf({ 'metadata.example': [address] });
      const target = await resolveTarget('http://metadata.example/', true, resolver);
      expect(target).toEqual({ ok: false, refusal: expect.stringMatching(/never allowed/) });
    },
  );

  it('checks an IP literal without resolving it', async () => {
    const resolver = toLoopback();
    await expect(resolveTarget('https://[::1]:8443/', true, resolver)).resolves.toEqual({
      ok: true,
      address: '::1',
      family: 6,
    });
    await expect(resolveTarget('https://[::1]/', false, resolver)).resolves.toMatchObject({
      ok: false,
    });
    expect(resolver).not.toHaveBeenCalled();
  });

  it('refuses a name that does not resolve, or resolves to nothing usable', async () => {
    const resolver = resolverOf({ 'empty.example': [], 'odd.example': ['not-an-address'] });
    await expect(resolveTarget('https://x.invalid/', false, resolver)).resolves.toEqual({
      ok: false,
      refusal: "The webhook URL's host x.invalid does not resolve.",
    });
    const empty = await resolveTarget('https://empty.example/', false, resolver);
    const odd = await resolveTarget('https://odd.example/', false, resolver);
    expect(empty).toEqual({ ok: false, refusal: expect.stringContaining('does not resolve') });
    expect(odd).toEqual({ ok: false, refusal: expect.stringContaining('not an IP address') });
  });

  it('refuses localhost through the system resolver, as loopback', async () => {
    const target = await resolveTarget('https://localhost/hook', false, systemResolver);
    expect(target).toEqual({
      ok: false,
      refusal: expect.stringMatching(
        /^The webhook URL's host localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
      ),
    });
  });
});

describe('postToTarget', () => {
  it('POSTs to the checked address, with the URL host as Host and its own defaults', async () => {
    const server = await startServer((response) => response.writeHead(200).end('ok'));
    const resolver = toLoopback();
    const url = `http://hooks.example:${server.port}/x?y=1`;
    const body = JSON.stringify({ event: 'invocation.completed' });

    const answer = await postToTarget(
      url,
      { 'X-Webhook-Signature': 'sig' },
      body,
      withSwitch(resolver),
    );

    expect(answer).toEqual({ status: 200 });
    expect(resolver).toHaveBeenCalledTimes(1);
    expect(server.requests).toEqual([
      {
        method: 'POST',
        url: '/x?y=1',
        body,
        headers: expect.objectContaining({
          host: `hooks.example:${server.port}`,
          'content-type': 'application/json',
          'user-agent': 'tool-invocation-service-webhooks/1',
          'content-length': String(Buffer.byteLength(body)),
          'x-webhook-signature': 'sig',
        }),
      },
    ]);
  });

  it("keeps the caller's content-type and user-agent", async () => {
    const server = await startServer((response) => response.writeHead(204).end());
    const headers = { 'Content-Type': 'application/cloudevents+json', 'User-Agent': 'custom/2' };
    const url = `http://hooks.example:${server.port}/`;
    const answer = await postToTarget(url, headers, '{}', withSwitch(toLoopback()));
    expect(answer).toEqual({ status: 204 });
    expect(server.requests[0].headers).toMatchObject({
      'content-type': 'application/cloudevents+json',
      'user-agent': 'custom/2',
    });
  });

  it('never follows a redirect: a 302 is the answer', async () => {
    const elsewhere = await startServer((response) => response.writeHead(200).end());
    const server = await startServer((response) =>
      response.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/stolen` }).end(),
    );
    const url = `http://hooks.example:${server.port}/x`;
    const answer = await postToTarget(url, {}, '{}', withSwitch(toLoopback()));
    expect(answer).toEqual({ status: 302 });
    expect(server.requests).toHaveLength(1);
    expect(elsewhere.connections).toBe(0);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('reads no more than 64 KB of an answer: the status counts, the socket goes', async () => {
    // 64 MB, more than loopback socket buffers hold: the server cannot finish unless it is read.
    const total = 64 * 1024 * 1024;
    let written = 0;
    let hungUp!: () => void;
    const closed = new Promise<void>((resolve) => (hungUp = resolve));
    const server = await startServer((response) => {
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        let more = true;
        while (more && written < total) {
          written += chunk.length;
          more = response.write(chunk);
        }
        if (written >= total) response.end();
      };
      response.on('close', hungUp);
      response.on('drain', pump);
      response.writeHead(200, { 'content-length': total });
      pump();
    });
    const url = `http://hooks.example:${server.port}/`;

    const answer = await postToTarget(url, {}, '{}', withSwitch(toLoopback()));

    expect(answer).toEqual({ status: 200 });
    await closed;
    expect(written).toBeLessThan(total);
  });

  it('gives the seconds of Retry-After, as delta-seconds or an HTTP date', async () => {
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const seconds = await startServer((response) =>
      response.writeHead(503, { 'retry-after': '7' }).end('busy'),
    );
    const date = await startServer((response) =>
      response.writeHead(429, { 'retry-after': inTwoMinutes }).end(),
    );
    const options = withSwitch(toLoopback());
    const first = await postToTarget(`http://hooks.example:${seconds.port}/`, {}, '{}', options);
    const second = await postToTarget(`http://hooks.example:${date.port}/`, {}, '{}', options);
    expect(first).toEqual({ status: 503, retryAfterSeconds: 7 });
    expect(second.status).toBe(429);
    expect(second.retryAfterSeconds).toBeGreaterThanOrEqual(118);
    expect(second.retryAfterSeconds).toBeLessThanOrEqual(120);
  });

  it('gives up on a receiver that never answers', async () => {
    const server = await startServer(() => undefined);
    const url = `http://hooks.example:${server.port}/`;
    const startedAt = Date.now();
    const answer = await postToTarget(url, {}, '{}', withSwitch(toLoopback(), 300));
    expect(answer).toEqual({ error: 'timed out after 0.3 s' });
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
  });

  it('gives up on a resolver that never answers', async () => {
    const hanging: Resolver = () => new Promise(() => undefined);
    const answer = await postToTarget('http://hooks.example/', {}, '{}', withSwitch(hanging, 300));
    expect(answer).toEqual({ error: 'timed out after 0.3 s' });
  });

  it('says what went wrong without an answer, never throwing', async () => {
    const server = await startServer((response) => response.end());
    const port = server.port;
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const options = withSwitch(toLoopback());

    const refused = await postToTarget(`http://hooks.example:${port}/`, {}, '{}', options);
    const badHeader = await postToTarget(
      `http://hooks.example:${port}/`,
      { 'x-a': 'a\nb' },
      '{}',
      options,
    );

    expect(refused).toEqual({ error: expect.stringContaining('ECONNREFUSED') });
    expect(badHeader).toEqual({ error: expect.any(String) });
  });

  it('speaks TLS to an https:// receiver at the checked address', async () => {
    const server = await startServer((response) => response.end());
    const url = `https://hooks.example:${server.port}/`;
    const answer = await postToTarget(url, {}, '{}', withSwitch(toLoopback()));
    // A plain HTTP server cannot complete the handshake; the connection went to it all the same.
    expect(answer).toEqual({ error: expect.any(String) });
    expect(server.connections).toBe(1);
    expect(server.requests).toHaveLength(0);
  });

  it('without the switch, makes no connection to a refused target', async () => {
    const server = await startServer((response) => response.end());
    const resolver = toLoopback();
    const options = { allowPrivate: false, resolver, timeoutMs: 5_000 };

    const plain = await postToTarget(`http://hooks.example:${server.port}/x`, {}, '{}', options);
    const tls = await postToTarget(`https://hooks.example:${server.port}/x`, {}, '{}', options);

    expect(plain).toEqual({ error: expect.stringContaining('must use https://') });
    expect(tls).toEqual({
      error: expect.stringContaining('hooks.example resolves to 127.0.0.1, a loopback address'),
    });
    expect(server.connections).toBe(0);
  });

  it('makes no connection to a name resolving to a cloud metadata address', async () => {
    const server = await startServer((response) => response.end());
    const resolver = resolverOf({ 'metadata.example': ['169.254.169.254'] });
    const url = `http://metadata.example:${server.port}/latest/meta-data/`;
    const answer = await postToTarget(url, {}, '{}', withSwitch(resolver));
    expect(answer).toEqual({ error: expect.stringContaining('a cloud metadata address') });
    expect(server.connections).toBe(0);
  });
});
