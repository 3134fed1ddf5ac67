import { SourcesService } from '../../src/sources';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import {
  AuthorizationServer,
  startAuthorizationServer,
} from '../support/oauth/authorization-server';
import { freePort } from '../support/redis';
import { eventually } from '../support/upstreams';
import { FastApiService, startFastApi } from '../support/upstreams/fastapi';

/** The authorization server's confidential client (authorization-server.mjs). */
const CLIENT_ID = 'cc-client';
const CLIENT_SECRET = 'cc-secret';

/**
 * Sources whose credentials are OAuth client credentials, against real parts: oidc-provider as the
 * upstreams' authorization server, a second instance of this service (OAuth on, its tokens verified
 * for real) as an MCP upstream, and the FastAPI service as an OpenAPI upstream. The token is asked
 * for once and reused, dropped and asked again when the upstream refuses it, never the caller's,
 * and neither it nor the client's secret is in an answer or a log line.
 */
describe('Sources with OAuth client credentials (e2e)', () => {
  let as: AuthorizationServer;
  let peer: TestApp;
  let peerBase: string;
  let api: FastApiService;
  let t: TestApp;
  let key: string;

  const tokenRequests = async () => (await as.control('state')).counters.tokenRequests;
  const auth = (resource: string, secret = '${CLIENT_SECRET}') =>
    `{ type: oauth_client_credentials, token_url: "${as.issuer}/token", client_id: ${CLIENT_ID}, ` +
    `client_secret: "${secret}", scope: "services:execute", resource: "${resource}" }`;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    const peerPort = await freePort();
    peerBase = `http://127.0.0.1:${peerPort}`;
    peer = await startApp({ env: { PUBLIC_URL: peerBase, OAUTH_ISSUERS: as.issuer } });
    await peer.app.listen(peerPort, '127.0.0.1');
    api = await startFastApi();
    const dataDir = tempDataDir();
    const config = `sources:
  peer:
    kind: mcp
    url: ${peerBase}/mcp
    include: [greet]
    auth: ${auth(`${peerBase}/mcp`)}
  inventory:
    kind: openapi
    document: ${api.documentUrl}
    base_url: ${api.url}
    include: [guarded]
    auth: ${auth(api.url)}
`;
    t = await startApp({
      dataDir,
      env: {
        CONFIG_FILE: writeConfigFile(dataDir, config),
        SOURCE_ALLOW_PRIVATE: 'true',
        CLIENT_SECRET,
      },
    });
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    const sources = t.app.get(SourcesService);
    await eventually(() => sources.list().every((source) => source.state === 'ready'), 90_000);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await peer?.close();
    await api?.stop();
    await as?.stop();
  });

  it("calls an MCP upstream with the service's own token, asked for once and reused", async () => {
    const before = await tokenRequests();
    for (let i = 0; i < 3; i++) {
      const res = await t.callTool('peer_greet', { name: 'Ada' }, key).expect(200);
      expect(res.body).toMatchObject({
        content: [{ type: 'text', text: expect.stringContaining('Hello, Ada!') }],
        isError: false,
      });
    }
    // The listing's token served the three calls.
    expect(await tokenRequests()).toBe(before);
    // The upstream charged its OAuth client's principal, never the caller's key.
    const entries = await peer.ledger({ tool: 'greet' });
    expect(entries.length).toBeGreaterThanOrEqual(3);
    expect(new Set(entries.map(({ subject }) => (subject as { kind: string }).kind))).toEqual(
      new Set(['principal']),
    );
  });

  it('asks for a new token when the upstream refuses the one it has, and calls once more with it', async () => {
    const first = await t.callTool('inventory_guarded', {}, key).expect(200);
    const used = (first.body as { authorization: string }).authorization;
    expect(used).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(used).not.toContain(key);
    const before = await tokenRequests();
    const revoked = await fetch(`${api.url}/__revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: used.slice('Bearer '.length) }),
    });
    expect(revoked.status).toBe(200);

    const second = await t.callTool('inventory_guarded', {}, key).expect(200);
    const renewed = (second.body as { authorization: string }).authorization;
    expect(renewed).toMatch(/^Bearer /);
    expect(renewed).not.toBe(used);
    expect(await tokenRequests()).toBe(before + 1);
    // Charged once, for the call that answered.
    expect(second.headers['x-quota-cost']).toBe('1');
  });

  it("keeps the client's secret and the tokens out of every answer and log line", async () => {
    const token = (
      (await t.callTool('inventory_guarded', {}, key).expect(200)).body as {
        authorization: string;
      }
    ).authorization.slice('Bearer '.length);
    const answers = [
      await t.http().get('/api/v1/sources').set(bearer(t.adminKey)).expect(200),
      await t.http().get('/api/v1/sources/peer').set(bearer(t.adminKey)).expect(200),
      await t.http().get('/api/v1/tools/peer_greet').set(bearer(t.adminKey)),
    ].map((res) => JSON.stringify([res.body, res.headers]));
    const everything = [...answers, t.logs.text()].join('\n');
    expect(everything).not.toContain(CLIENT_SECRET);
    expect(everything).not.toContain(token);
  });

  it('makes a source through the API whose token endpoint refuses it: unavailable, saying why, secret unsaid', async () => {
    const wrong = 'not-the-client-secret';
    const res = await t
      .http()
      .post('/api/v1/sources')
      .set(bearer(t.adminKey))
      .send({
        name: 'refused',
        kind: 'mcp',
        url: `${peerBase}/mcp`,
        auth: {
          type: 'oauth_client_credentials',
          token_url: `${as.issuer}/token`,
          client_id: CLIENT_ID,
          client_secret: wrong,
          resource: `${peerBase}/mcp`,
        },
      })
      .expect(201);
    expect(JSON.stringify(res.body)).not.toContain(wrong);
    const sources = t.app.get(SourcesService);
    await eventually(() => sources.get('refused')?.state === 'unavailable', 30_000);
    const view = await t.http().get('/api/v1/sources/refused').set(bearer(t.adminKey)).expect(200);
    expect(view.body.last_error).toContain('Source refused: its token endpoint refused');
    expect(view.body.last_error).toContain('invalid_client');
    expect(JSON.stringify(view.body) + t.logs.text()).not.toContain(wrong);
    // Removed: its retries would ask the token endpoint again, which the other tests count.
    await t.http().delete('/api/v1/sources/refused').set(bearer(t.adminKey)).expect(204);
  });

  it('refuses a token endpoint the source URL rules refuse (400), making nothing', async () => {
    const res = await t
      .http()
      .post('/api/v1/sources')
      .set(bearer(t.adminKey))
      .send({
        name: 'metadata',
        kind: 'mcp',
        url: `${peerBase}/mcp`,
        auth: {
          type: 'oauth_client_credentials',
          token_url: 'http://169.254.169.254/latest/token',
          client_id: CLIENT_ID,
          client_secret: 'anything-at-all',
        },
      })
      .expect(400);
    expect(res.body.detail).toBe(
      "The source URL's address 169.254.169.254 is a cloud metadata address: never allowed.",
    );
    await t.http().get('/api/v1/sources/metadata').set(bearer(t.adminKey)).expect(404);
  });
});
