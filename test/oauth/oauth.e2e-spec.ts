import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { ClientCredentialsProvider } from '@modelcontextprotocol/client';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import type { Server } from 'node:http';
import { bearer, startApp, TestApp } from '../support/app';
import { registeredToolNames } from '../support/registered-tools';
import {
  AuthorizationServer,
  clientCredentialsToken,
  completeAuthorization,
  startAuthorizationServer,
} from '../support/oauth/authorization-server';
import { strayKey, TokenIssuer } from '../support/oauth/token-issuer';
import { freePort } from '../support/redis';

/** Listens on the port PUBLIC_URL names: an MCP client follows the URLs the service publishes. */
async function listenOn(t: TestApp, port: number): Promise<void> {
  const server = t.app.getHttpServer() as Server;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
}

const METADATA = '/.well-known/oauth-protected-resource';
const INVALID = { detail: 'Invalid access token' };

describe('OAuth: the service as a protected resource (e2e)', () => {
  let as: AuthorizationServer;
  let crafted: TokenIssuer;
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    [as, crafted] = await Promise.all([startAuthorizationServer(), TokenIssuer.start()]);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startApp({
      env: {
        PUBLIC_URL: base,
        OAUTH_ISSUERS: `${as.issuer},${crafted.issuer}`,
        OAUTH_PLAN_CLAIM: 'plan',
      },
    });
    await listenOn(t, port);
    // Every test's client-credentials tokens speak for one principal: a rate its calls, in any
    // order, cannot reach within a second (its plan stays the claim's).
    const cc = await clientCredentialsToken(as.issuer, { resource: base, scope: 'services:read' });
    const me = await t.http().get('/api/v1/auth/me').set(bearer(cc));
    await t
      .http()
      .patch(`/api/v1/auth/principals/${me.body.principal_id as string}`)
      .set(bearer(t.adminKey))
      .send({ rate_limit: 1000 })
      .expect(200);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await Promise.all([as?.stop(), crafted?.stop()]);
  });

  const token = (scope = 'services:read services:execute', resource = base) =>
    clientCredentialsToken(as.issuer, { resource, scope });
  const greet = (credential: string, name = 'Ada') =>
    t.http().post('/api/v1/services/greet').set(bearer(credential)).send({ name });
  const me = (credential: string) => t.http().get('/api/v1/auth/me').set(bearer(credential));
  const mcpList = (credential: string) =>
    t
      .http()
      .post('/mcp')
      .set(bearer(credential))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  /** A token of the crafted issuer for `sub`, good on the REST resource unless told otherwise. */
  const craftedToken = (sub: string, claims: Record<string, unknown> = {}) =>
    crafted.sign({ sub, aud: base, scope: 'services:read services:execute', ...claims });

  it('publishes the metadata of both resources (RFC 9728), open to every origin', async () => {
    const root = await t.http().get(METADATA).set('Origin', 'https://inspector.example');
    expect(root.status).toBe(200);
    expect(root.body).toEqual({
      resource: base,
      authorization_servers: [as.issuer, crafted.issuer],
      scopes_supported: [
        'services:read',
        'services:execute',
        'admin:read',
        'admin:write',
        ...registeredToolNames()
          .sort()
          .map((tool) => `services:execute:${tool}`),
      ],
      bearer_methods_supported: ['header'],
    });
    expect(root.headers['access-control-allow-origin']).toBe('*');
    const mcp = await t.http().get(`${METADATA}/mcp`);
    expect(mcp.body).toEqual({
      resource: `${base}/mcp`,
      authorization_servers: [as.issuer, crafted.issuer],
      scopes_supported: [
        'services:execute',
        ...registeredToolNames()
          .sort()
          .map((tool) => `services:execute:${tool}`),
      ],
      bearer_methods_supported: ['header'],
    });
  });

  it('points every 401 at the metadata, asking for services:execute on tool routes and /mcp', async () => {
    const tool = await t.http().post('/api/v1/services/greet').send({ name: 'Ada' });
    expect([tool.status, tool.body]).toEqual([401, { detail: 'Not authenticated' }]);
    expect(tool.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${base}${METADATA}", scope="services:execute"`,
    );
    const mcp = await t.http().post('/mcp').send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(mcp.status).toBe(401);
    expect(mcp.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", resource_metadata="${base}${METADATA}/mcp", scope="services:execute"`,
    );
    const other = await t.http().get('/api/v1/auth/me');
    expect(other.headers['www-authenticate']).toBe(`Bearer resource_metadata="${base}${METADATA}"`);
    const key = await me(`sk_${'0'.repeat(64)}`);
    expect([key.status, key.body]).toEqual([401, { detail: 'Invalid API key' }]);
    expect(key.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", resource_metadata="${base}${METADATA}"`,
    );
  });

  it('takes /mcp’s tokens and challenges on a source’s own endpoint, /mcp/sources/<source>', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const anonymous = await t.http().post('/mcp/sources/everything').send(list);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", resource_metadata="${base}${METADATA}/mcp", scope="services:execute"`,
    );
    const post = (credential: string) =>
      t
        .http()
        .post('/mcp/sources/everything')
        .set(bearer(credential))
        .set('Accept', 'application/json, text/event-stream')
        .send(list);
    // A token for /mcp is taken (this app runs no source: 404); one for REST is not.
    const forMcp = await post(await token('services:execute', `${base}/mcp`));
    expect([forMcp.status, forMcp.body]).toEqual([404, { detail: 'Source not found' }]);
    const forRest = await post(await token());
    expect([forRest.status, forRest.body]).toEqual([401, { detail: 'Invalid access token' }]);
  });

  it('serves REST greet to a client-credentials token; /auth/me describes its principal', async () => {
    const credential = await token();
    const res = await greet(credential);
    expect([res.status, res.body]).toEqual([200, { message: 'Hello, Ada!', times: 1 }]);
    expect(res.headers['x-quota-limit']).toBe('100');
    const who = await me(credential);
    expect(who.status).toBe(200);
    expect(who.body).toEqual({
      auth_method: 'oauth',
      principal_id: expect.stringMatching(/^prn_[0-9a-f]{32}$/),
      issuer: as.issuer,
      subject: 'cc-client',
      client_id: 'cc-client',
      scopes: ['services:read', 'services:execute'],
      plan: 'free',
      expires_at: new Date((decodeJwt(credential).exp as number) * 1000).toISOString(),
    });
  });

  it('answers a token without the scope 403 insufficient_scope, naming the scope', async () => {
    const res = await greet(await token('services:read'));
    expect([res.status, res.body]).toEqual([
      403,
      { detail: 'Insufficient permissions for this operation.' },
    ]);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", resource_metadata="${base}${METADATA}", scope="services:execute:greet"`,
    );
  });

  it('lets a token scoped to one tool call that tool only, over REST and MCP', async () => {
    const credential = await token('services:execute:greet');
    const ok = await greet(credential);
    expect([ok.status, ok.body]).toEqual([200, { message: 'Hello, Ada!', times: 1 }]);
    const other = await t
      .http()
      .post('/api/v1/services/config_get')
      .set(bearer(credential))
      .send({ key: 'greeting' });
    expect([other.status, other.body]).toEqual([
      403,
      { detail: 'Insufficient permissions for this operation.' },
    ]);
    expect(other.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", resource_metadata="${base}${METADATA}", scope="services:execute:config_get"`,
    );
    const list = await mcpList(await token('services:execute:greet', `${base}/mcp`));
    expect(list.status).toBe(200);
    expect(list.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['greet']);
    expect((await me(credential)).body.scopes).toEqual(['services:execute:greet']);
  });

  it('refuses every token that is not good here: 401 Invalid access token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const stray = await strayKey();
    const forRest = await token();
    const forMcp = await token('services:execute', `${base}/mcp`);
    const cases: Record<string, { credential: string; path?: 'rest' | 'mcp' }> = {
      expired: { credential: await craftedToken('ada', { exp: now - 120 }) },
      'not yet valid': { credential: await craftedToken('ada', { nbf: now + 300 }) },
      'wrong issuer': { credential: await craftedToken('ada', { iss: 'https://other.example' }) },
      'a token for /mcp used on REST': { credential: forMcp },
      'a token for REST used on /mcp': { credential: forRest, path: 'mcp' },
      'another audience': {
        credential: await craftedToken('ada', { aud: 'https://else.example' }),
      },
      'an unknown kid': {
        credential: await crafted.sign({ sub: 'ada', aud: base }, { kid: 'nope', key: stray }),
      },
      'alg none': { credential: crafted.unsigned({ sub: 'ada', aud: base }) },
      'HS256 with a guess': {
        credential: await crafted.hs256({ sub: 'ada', aud: base }, 'secret', crafted.firstKid),
      },
      'another key under a known kid': {
        credential: await crafted.sign(
          { sub: 'ada', aud: base },
          { kid: crafted.firstKid, key: stray },
        ),
      },
      'no subject': { credential: await crafted.sign({ aud: base }) },
      'a subject not a string': {
        credential: await crafted.sign({ sub: 42 as unknown as string, aud: base }),
      },
      'an empty subject': { credential: await crafted.sign({ sub: '', aud: base }) },
      'an expiry past any date': {
        credential: await craftedToken('ada', { exp: 1e308 }),
      },
      malformed: { credential: 'eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln' },
      'not a JWT': { credential: 'abc.def' },
      'a tampered payload': {
        credential: forRest.replace(/\.([^.]+)\./, (_, p: string) => `.${p.slice(0, -2)}AA.`),
      },
    };
    for (const [why, { credential, path }] of Object.entries(cases)) {
      const res = path === 'mcp' ? await mcpList(credential) : await greet(credential);
      expect({ why, status: res.status, body: res.body as unknown }).toEqual({
        why,
        status: 401,
        body: INVALID,
      });
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    // Good tokens still pass, each on its own resource.
    expect((await greet(forRest)).status).toBe(200);
    expect((await mcpList(forMcp)).status).toBe(200);
  });

  it('fetches the keys at most once a minute under a storm of unknown kids', async () => {
    const stray = await strayKey();
    const before = crafted.jwksFetches;
    const storm = Array.from({ length: 30 }, (_, i) =>
      crafted.sign({ sub: 'ada', aud: base }, { kid: `storm-${i}`, key: stray }),
    );
    const answers = await Promise.all((await Promise.all(storm)).map((c) => greet(c)));
    for (const c of (await Promise.all(storm)).slice(0, 5)) answers.push(await greet(c));
    expect(new Set(answers.map((res) => res.status))).toEqual(new Set([401]));
    expect(crafted.jwksFetches - before).toBeLessThanOrEqual(1);
  });

  it("takes a principal's plan from the configured claim", async () => {
    await as.control('plan', { subject: 'cc-client', plan: 'pro' });
    try {
      const credential = await token();
      expect((await me(credential)).body.plan).toBe('pro');
      expect((await greet(credential)).headers['x-quota-limit']).toBe('10000');
      // A claim that names no plan gives OAUTH_DEFAULT_PLAN.
      expect((await me(await craftedToken('ada', { plan: 'platinum' }))).body.plan).toBe('free');
    } finally {
      await as.control('plan', { subject: 'cc-client', plan: 'free' });
    }
  });

  it("keeps a principal's quota exact under concurrency, apart from another subject's", async () => {
    const [alice, bob] = await Promise.all([craftedToken('alice'), craftedToken('bob')]);
    const aliceId = (await me(alice)).body.principal_id as string;
    const patched = await t
      .http()
      .patch(`/api/v1/auth/principals/${aliceId}`)
      .set(bearer(t.adminKey))
      .send({ daily_limit: 5, rate_limit: 100 });
    expect([patched.status, patched.body.daily_limit]).toEqual([200, 5]);
    const answers = await Promise.all(Array.from({ length: 12 }, () => greet(alice)));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(402)]);
    const usage = await t
      .http()
      .get(`/api/v1/auth/principals/${aliceId}/usage`)
      .set(bearer(t.adminKey));
    expect([usage.status, usage.body.used, usage.body.daily_limit]).toEqual([200, 5, 5]);
    expect((await greet(bob)).status).toBe(200);
    const own = await t.http().get('/api/v1/usage').set(bearer(bob));
    expect([own.body.used, own.body.daily_limit]).toEqual([1, 100]);
  });

  it('names the principal in the audit trail and holds it to the no-escalation rule', async () => {
    const operator = await craftedToken('operator', { scope: 'admin:read admin:write' });
    const operatorId = (await me(operator)).body.principal_id as string;
    const created = await t
      .http()
      .post('/api/v1/auth/api-keys')
      .set(bearer(operator))
      .send({ name: 'made-by-oauth', scopes: ['admin:read'] });
    expect(created.status).toBe(201);
    // More than its own free plan: refused.
    const richer = await t
      .http()
      .post('/api/v1/auth/api-keys')
      .set(bearer(operator))
      .send({ name: 'richer', scopes: ['admin:read'], plan: 'unlimited' });
    expect(richer.status).toBe(403);
    // A key holding more than it holds: it may not take it over.
    const admin = await t.createKeyWithId({ scope_template: 'admin' });
    const takeOver = await t
      .http()
      .post(`/api/v1/auth/api-keys/${admin.id}/rotate`)
      .set(bearer(operator))
      .send({});
    expect(takeOver.status).toBe(403);
    const audit = await t.http().get('/api/v1/audit').set(bearer(t.adminKey));
    const entry = (audit.body.entries as Record<string, unknown>[]).find(
      (e) => e.target === created.body.id,
    );
    expect(entry).toMatchObject({
      action: 'api_key.create',
      actor_key_id: null,
      actor_principal_id: operatorId,
    });
  });

  it("refuses a disabled principal's tokens at once, and lists principals for operators", async () => {
    const carol = await craftedToken('carol');
    const carolId = (await me(carol)).body.principal_id as string;
    const list = await t.http().get('/api/v1/auth/principals').set(bearer(t.adminKey));
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(
      expect.objectContaining({
        id: carolId,
        issuer: crafted.issuer,
        subject: 'carol',
        client_id: null,
        plan: 'free',
        operator_plan: null,
        enabled: true,
      }),
    );
    const disabled = await t
      .http()
      .patch(`/api/v1/auth/principals/${carolId}`)
      .set(bearer(t.adminKey))
      .send({ enabled: false });
    expect(disabled.body.enabled).toBe(false);
    const refused = await greet(carol);
    expect([refused.status, refused.body]).toEqual([401, INVALID]);
    const audit = await t.http().get('/api/v1/audit').set(bearer(t.adminKey));
    expect(audit.body.entries[0]).toMatchObject({
      action: 'principal.update',
      target: carolId,
      details: { enabled: { from: true, to: false } },
    });
    await t
      .http()
      .patch(`/api/v1/auth/principals/${carolId}`)
      .set(bearer(t.adminKey))
      .send({ enabled: true });
    expect((await greet(carol)).status).toBe(200);
    const unknown = await t
      .http()
      .patch('/api/v1/auth/principals/prn_00000000000000000000000000000000')
      .set(bearer(t.adminKey))
      .send({ enabled: false });
    expect([unknown.status, unknown.body]).toEqual([404, { detail: 'Principal not found' }]);
  });

  it('connects the official MCP client through OAuth: discovery, registration, code with PKCE, then tools', async () => {
    const requests: string[] = [];
    const logged: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input.toString());
      const res = await fetch(input, init);
      requests.push(
        `${init?.method ?? 'GET'} ${url.origin === base ? 'service' : 'as'} ${url.pathname} ${res.status}`,
      );
      return res;
    };
    const provider = new HeadlessProvider();
    const url = new URL(`${base}/mcp`);
    // The 2026-07-28 era (server/discover), as a client of today negotiates it.
    const modern = { versionNegotiation: { mode: 'auto' as const } };
    const first = new Client({ name: 'oauth-e2e', version: '1.0.0' }, modern);
    const transport = new StreamableHTTPClientTransport(url, {
      authProvider: provider,
      fetch: logged,
    });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    // The person's browser: the server's login and consent, back to the client's redirect URI.
    const redirect = await completeAuthorization(provider.authorizationUrl as URL);
    expect(redirect.searchParams.get('state')).toBe(provider.lastState);
    await transport.finishAuth(redirect.searchParams);
    const access = decodeJwt((provider.tokens() as OAuthTokens).access_token);
    expect(access.aud).toBe(`${base}/mcp`);
    const client = new Client({ name: 'oauth-e2e', version: '1.0.0' }, modern);
    await client.connect(
      new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: logged }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toContain('greet');
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(result.structuredContent).toEqual({ message: 'Hello, Ada!', times: 1 });
    } finally {
      await client.close();
    }
    expect(requests).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^POST service \/mcp 401$/),
        `GET service ${METADATA}/mcp 200`,
        'GET as /.well-known/oauth-authorization-server 200',
        'POST as /reg 201',
        'POST as /token 200',
      ]),
    );
  });

  it('serves the 2025 MCP client with a client-credentials provider', async () => {
    // The 2025 handshake's messages and the tests before share cc-client's budget: a plan of 50/s.
    await as.control('plan', { subject: 'cc-client', plan: 'pro' });
    const provider = new ClientCredentialsProvider({
      clientId: 'cc-client',
      clientSecret: 'cc-secret',
      expectedIssuer: as.issuer,
    });
    const client = new Client({ name: 'oauth-cc', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }),
      );
      expect(client.getNegotiatedProtocolVersion()).toMatch(/^2025-/);
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Bo' } });
      expect(result.structuredContent).toEqual({ message: 'Hello, Bo!', times: 1 });
    } finally {
      await client.close();
      await as.control('plan', { subject: 'cc-client', plan: 'free' });
    }
  });
});

describe('OAuth: keys rotated, keys unreachable (e2e)', () => {
  let as: AuthorizationServer;
  let t: TestApp;
  let base: string;
  let dead: string;

  const env = () => ({
    PUBLIC_URL: base,
    OAUTH_ISSUERS: `${as.issuer},${dead}`,
  });

  beforeAll(async () => {
    as = await startAuthorizationServer();
    base = `http://127.0.0.1:${await freePort()}`;
    dead = `http://127.0.0.1:${await freePort()}`;
    t = await startApp({ env: env() });
    // doctor waits for the discovery started with the service: it is over (and logged in t's
    // logs, not those of an app a test starts) before any test runs.
    await t.http().post('/api/v1/services/doctor').set(bearer(t.adminKey)).send({}).expect(200);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await as?.stop();
  });

  const token = () =>
    clientCredentialsToken(as.issuer, { resource: base, scope: 'services:execute' });
  const greet = (credential: string) =>
    t.http().post('/api/v1/services/greet').set(bearer(credential)).send({ name: 'Ada' });

  it('picks up a rotation at the issuer without a restart', async () => {
    // An app of its own: another test's unknown kid (a rotation of its own) would have used the
    // refetch this one expects (OAUTH_JWKS_REFETCH_MS bounds the refetches unknown kids cause).
    const own = await startApp({ env: env() });
    const call = (credential: string) =>
      own.http().post('/api/v1/services/greet').set(bearer(credential)).send({ name: 'Ada' });
    try {
      const before = await token();
      expect((await call(before)).status).toBe(200);
      const rotated = await as.control('rotate', { kty: 'RSA' });
      const after = await token();
      expect(decodeJwt(after)).toBeTruthy();
      expect(after).not.toBe(before);
      expect((await call(after)).status).toBe(200);
      expect((await call(before)).status).toBe(200);
      expect(rotated.jwksKids).toContain(rotated.kids.RSA);
    } finally {
      await own.close();
    }
  });

  it("answers 503, never a guess, while an issuer's keys cannot be fetched", async () => {
    // An app of its own: it remembers the failure for a few seconds (and answers 503 meanwhile),
    // which the other tests here, in any order, must not meet.
    const own = await startApp({ env: env() });
    await as.control('jwks', { status: 503 });
    try {
      await as.control('rotate', { kty: 'RSA' });
      const unseen = await token();
      for (let i = 0; i < 2; i++) {
        const res = await own
          .http()
          .post('/api/v1/services/greet')
          .set(bearer(unseen))
          .send({ name: 'Ada' });
        expect(res.status).toBe(503);
        expect(res.body.detail).toMatch(
          /^Service temporarily unavailable: the authorization server's keys cannot be fetched\. Retry after \d+ seconds?\.$/,
        );
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
    } finally {
      await as.control('jwks', { status: 200 });
      await own.close();
    }
  });

  it('starts with an issuer it cannot reach: a warning, and 503 for its tokens', async () => {
    // doctor waits for the discovery started with the service.
    const doctor = await t.http().post('/api/v1/services/doctor').set(bearer(t.adminKey)).send({});
    const check = (doctor.body.checks as { name: string; status: string; message: string }[]).find(
      (c) => c.name === 'oauth_issuers',
    );
    expect(check).toMatchObject({ status: 'fail' });
    expect(check?.message).toContain(dead);
    const warned = t.logs
      .records()
      .filter((r) => r.level === 'warn' && String(r.msg).includes(`Authorization server ${dead}`));
    expect(warned).toHaveLength(1);
    const crafted = await TokenIssuer.start();
    try {
      const res = await greet(await crafted.sign({ iss: dead, sub: 'ada', aud: base }));
      expect([res.status, res.headers['retry-after']]).toEqual([503, expect.any(String)]);
    } finally {
      await crafted.stop();
    }
  });
});

describe('OAuth off: nothing changes (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });

  afterAll(() => t?.close());

  it('serves no metadata and keeps the bare challenge', async () => {
    for (const path of [METADATA, `${METADATA}/mcp`]) {
      const res = await t.http().get(path);
      expect([res.status, res.body]).toEqual([404, { detail: 'Not Found' }]);
    }
    const res = await t.http().post('/api/v1/services/greet').send({ name: 'Ada' });
    expect(res.headers['www-authenticate']).toBe('Bearer');
    const jwt = await t
      .http()
      .get('/api/v1/auth/me')
      .set(bearer('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln'));
    expect([jwt.status, jwt.body]).toEqual([401, { detail: 'Invalid API key' }]);
    expect(jwt.headers['www-authenticate']).toBe('Bearer');
  });
});

/** What a native MCP client keeps for OAuth, in memory, with no person at a browser. */
class HeadlessProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  lastState?: string;
  private client?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier?: string;
  private discovery?: unknown;

  get redirectUrl(): string {
    return 'http://127.0.0.1:1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'oauth e2e',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.lastState = Math.random().toString(36).slice(2);
    return this.lastState;
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No code verifier saved');
    return this.verifier;
  }

  saveDiscoveryState(state: unknown): void {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery as never;
  }
}
