import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CONSOLE_BUILD_DIR } from '../../src/transports/console/console-assets';
import { loadSettings } from '../../src/kernel/settings/settings';
import { startApp, TestApp } from '../support/app';
import { listenOnLoopback } from '../support/raw-http';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request over a socket, the body's bytes as sent (no decompression). */
function raw(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The console's files, as `npm run build` wrote them (the test run's global setup built them). */
const built = (name: string) => readFileSync(join(CONSOLE_BUILD_DIR, name));
const scriptName = () =>
  readdirSync(join(CONSOLE_BUILD_DIR, 'assets')).find((file) => file.endsWith('.js')) as string;

describe('GET /console: the built console, compressed as the client accepts (e2e)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startApp();
    port = await listenOnLoopback(t.app);
  });
  afterAll(() => t.close());

  it('sends brotli, gzip or the file itself as Accept-Encoding asks, and says it varies', async () => {
    const index = built('index.html');
    const br = await raw(port, '/console', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body)).toEqual(index);
    expect(br.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.headers['content-length']).toBe(String(br.body.length));

    const gzip = await raw(port, '/console', { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body)).toEqual(index);

    const notBr = await raw(port, '/console', { 'Accept-Encoding': 'br;q=0, gzip;q=0.5' });
    expect(notBr.headers['content-encoding']).toBe('gzip');

    for (const headers of [{}, { 'Accept-Encoding': 'identity' }] as Record<string, string>[]) {
      const plain = await raw(port, '/console', headers);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toEqual(index);
    }
  });

  it('caches the hashed files for a year and the page never without asking', async () => {
    const page = await raw(port, '/console/');
    expect(page.headers['cache-control']).toBe('no-cache');
    const script = await raw(port, `/console/assets/${scriptName()}`, { 'Accept-Encoding': 'br' });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(script.body)).toEqual(built(`assets/${scriptName()}`));
  });

  it('answers its own pages with the console, and a file it does not have with 404', async () => {
    const index = built('index.html');
    for (const path of [
      '/console/keys',
      '/console/keys/key_0123456789abcdef',
      '/console/callback',
    ]) {
      const page = await raw(port, path);
      expect([path, page.status, page.body.equals(index)]).toEqual([path, 200, true]);
    }
    for (const path of [
      '/console/assets/missing.js',
      '/console/keys/key_0123456789abcdef/usage',
      '/console/../package.json',
      '/console/%2e%2e/%2e%2e/package.json',
      '/console/assets/..%2f..%2fpackage.json',
    ]) {
      const missing = await raw(port, path);
      expect([path, missing.status, JSON.parse(missing.body.toString())]).toEqual([
        path,
        404,
        { detail: 'Not Found' },
      ]);
    }
  });

  it('is under a policy that allows no inline script, and needs no key', async () => {
    const page = await raw(port, '/console', { Authorization: `Bearer sk_${'0'.repeat(64)}` });
    expect(page.status).toBe(200);
    const policy = page.headers['content-security-policy'] as string;
    expect(policy.split(';')).toEqual(
      expect.arrayContaining([
        "script-src 'self'",
        "script-src-attr 'none'",
        "style-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
      ]),
    );
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|upgrade-insecure-requests/);
    expect(page.headers['x-ratelimit-limit']).toBeUndefined();
    // The API keeps its own policy.
    const api = await raw(port, '/health');
    expect(api.headers['content-security-policy']).not.toBe(policy);
  });

  it('answers HEAD with the headers alone', async () => {
    const head = await raw(port, '/console', { 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.body.length).toBe(0);
  });
});

describe("the console's sign-in through an issuer: its settings (e2e)", () => {
  const issuer = 'https://login.example.com/realms/tools';
  const oauth = { PUBLIC_URL: 'https://tools.example.com', OAUTH_ISSUERS: issuer };

  it('takes a client id and one of OAUTH_ISSUERS, together', () => {
    expect(
      loadSettings({ ...oauth, CONSOLE_OAUTH_CLIENT_ID: 'console', CONSOLE_OAUTH_ISSUER: issuer })
        .oauth?.console,
    ).toEqual({ clientId: 'console', issuer });
    expect(loadSettings(oauth).oauth?.console).toBeUndefined();
  });

  it.each([
    [
      { ...oauth, CONSOLE_OAUTH_CLIENT_ID: 'console' },
      'Invalid environment: CONSOLE_OAUTH_CLIENT_ID and CONSOLE_OAUTH_ISSUER go together: set both or neither',
    ],
    [
      { ...oauth, CONSOLE_OAUTH_ISSUER: issuer },
      'Invalid environment: CONSOLE_OAUTH_CLIENT_ID and CONSOLE_OAUTH_ISSUER go together: set both or neither',
    ],
    [
      { ...oauth, CONSOLE_OAUTH_CLIENT_ID: 'c', CONSOLE_OAUTH_ISSUER: 'https://other.example.com' },
      "Invalid environment: CONSOLE_OAUTH_ISSUER 'https://other.example.com' must be one of OAUTH_ISSUERS",
    ],
    [
      { CONSOLE_OAUTH_CLIENT_ID: 'c', CONSOLE_OAUTH_ISSUER: issuer },
      `Invalid environment: CONSOLE_OAUTH_ISSUER '${issuer}' must be one of OAUTH_ISSUERS`,
    ],
  ])('refuses %j', (env, message) => {
    expect(() => loadSettings(env)).toThrow(message);
  });

  it('answers that the console signs in with keys only, without them', async () => {
    const t = await startApp();
    try {
      const config = await t.http().get('/console/config.json').expect(200);
      expect(config.body).toEqual({ oauth: null });
      expect(config.headers['content-security-policy'].split(';')).toContain("connect-src 'self'");
    } finally {
      await t.close();
    }
  });
});
