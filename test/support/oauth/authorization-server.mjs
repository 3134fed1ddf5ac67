#!/usr/bin/env node
// Loopback OAuth 2.1 authorization server for tests: oidc-provider 9.x.
//
// Start:  node as/oidc-as.mjs            (env below; all optional)
// Stdout: ONE JSON line {"issuer":"http://127.0.0.1:PORT", ...}; logs go to stderr.
// Stop:   SIGTERM/SIGINT, or close its stdin when AS_EXIT_ON_STDIN_END=1
//         (spawn with stdio ['pipe','pipe','inherit'] so a dying Jest worker takes it down).
//
// Env:
//   AS_PORT            port to listen on (default 0 = free port); host is always 127.0.0.1
//   AS_SCOPES          resource scopes (space separated), default "mcp:tools mcp:read mcp:write"
//   AS_ALG             JWS alg of JWT access tokens: RS256 (default) | PS256 | ES256 | EdDSA
//   AS_AT_TTL          access token TTL seconds (default 300)
//   AS_RESOURCE_PREFIX only resource indicators starting with this are accepted
//                      (default "http://127.0.0.1:"; anything else -> invalid_target)
//   AS_CC_CLIENT_ID / AS_CC_CLIENT_SECRET   pre-registered confidential client_credentials client
//                      (default "cc-client" / "cc-secret")
//   AS_EXIT_ON_STDIN_END=1
//
// Control endpoints (same origin, JSON in/out; test-only):
//   POST /__control/rotate      {"kty"?: "RSA"|"EC"|"OKP", "dropOld"?: bool}
//                               new key(s) with new kid become current (first in JWKS); old keys stay
//                               published unless dropOld. Returns {"kids":{RSA,EC,OKP}}.
//   POST /__control/jwks        {"status": 503}  JWKS endpoint answers that status; {"status": 200} restores
//   POST /__control/config      {"alg"?, "ttl"?, "audience"?, "scopes"?}  changes token format for new tokens
//   POST /__control/plan        {"subject": "<accountId or client_id>", "plan": "pro"}  (custom `plan` claim)
//   POST /__control/interaction {"mode": "approve"|"deny", "accountId"?: "alice"}
//   GET  /__control/state       current kids, alg, counters {jwksRequests, tokenRequests, registrations}
import * as http from 'node:http';
import * as crypto from 'node:crypto';
import Provider, { errors } from 'oidc-provider';
import * as jose from 'jose';

const env = process.env;
const state = {
  alg: env.AS_ALG || 'RS256',
  ttl: Number(env.AS_AT_TTL || 300),
  audience: undefined, // undefined -> aud = the resource indicator itself
  scopes: (env.AS_SCOPES || 'mcp:tools mcp:read mcp:write').split(' ').filter(Boolean),
  resourcePrefix: env.AS_RESOURCE_PREFIX || 'http://127.0.0.1:',
  jwksStatus: 200,
  plans: new Map([['test-user', 'pro']]),
  interaction: { mode: 'approve', accountId: 'test-user' },
  counters: { jwksRequests: 0, tokenRequests: 0, registrations: 0 },
  keys: [], // private JWKs, current first
  generation: 0,
};
const ccClient = {
  client_id: env.AS_CC_CLIENT_ID || 'cc-client',
  client_secret: env.AS_CC_CLIENT_SECRET || 'cc-secret',
};

const KTY_ALG = { RSA: 'RS256', EC: 'ES256', OKP: 'EdDSA' };
async function newKey(kty) {
  const { privateKey } = await jose.generateKeyPair(KTY_ALG[kty], { extractable: true, ...(kty === 'RSA' ? { modulusLength: 2048 } : {}) });
  const jwk = await jose.exportJWK(privateKey);
  // No `alg` on the JWK: the RSA key then serves both RS256 and PS256. `use: 'sig'` keeps it a signing key.
  jwk.use = 'sig';
  jwk.kid = `${kty.toLowerCase()}-${state.generation}-${crypto.randomBytes(4).toString('hex')}`;
  return jwk;
}
const currentKid = (kty) => state.keys.find((k) => k.kty === kty)?.kid;

const cookieKeys = [crypto.randomBytes(32).toString('base64url')];
let issuer; // set once listening
let provider; // current Provider instance; replaced on key rotation

function buildProvider() {
  const configuration = {
    jwks: { keys: state.keys },
    cookies: { keys: cookieKeys }, // same keys across rebuilds, so in-flight interactions survive a rotation
    clients: [{
      ...ccClient,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic', // client_secret_post also accepted (see clientAuthMethods)
    }],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    responseTypes: ['code'], // OAuth 2.1: no implicit / hybrid
    // Resource scopes must also be "statics" so DCR requests carrying scope="mcp:tools ..." validate.
    scopes: ['openid', 'offline_access', ...state.scopes],
    claims: { openid: ['sub'] },
    pkce: { required: () => true }, // OAuth 2.1: PKCE for every authorization code client
    features: {
      devInteractions: { enabled: false }, // we auto-approve below (no HTML, no forms)
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      resourceIndicators: {
        enabled: true,
        // no resource requested at /auth -> none (the token would be opaque/userinfo only)
        defaultResource: async (ctx, client, oneOf) => (oneOf ? oneOf[0] : undefined),
        // token endpoint may omit `resource` when exactly one was granted
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, resourceIndicator /* , client */) => {
          if (!resourceIndicator.startsWith(state.resourcePrefix)) throw new errors.InvalidTarget(`resource not served by this AS: ${resourceIndicator}`);
          return {
            scope: state.scopes.join(' '),
            audience: state.audience, // undefined -> aud === resourceIndicator (string, not array)
            accessTokenTTL: state.ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: state.alg } },
          };
        },
      },
    },
    async extraTokenClaims(ctx, token) {
      // token.accountId is set for user (auth code / refresh) tokens; absent for client_credentials.
      const subject = token.accountId ?? token.clientId;
      return { plan: state.plans.get(subject) ?? 'free' };
    },
    async findAccount(ctx, sub) {
      return { accountId: sub, async claims() { return { sub }; } };
    },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: {
      AccessToken: (ctx, token) => token.resourceServer?.accessTokenTTL ?? state.ttl,
      ClientCredentials: (ctx, token) => token.resourceServer?.accessTokenTTL ?? state.ttl,
      AuthorizationCode: 60, Grant: 3600, Interaction: 600, Session: 3600, IdToken: 3600, RefreshToken: 86400,
    },
    renderError(ctx, out) { ctx.type = 'json'; ctx.body = out; },
  };
  const p = new Provider(issuer, configuration);
  p.on('server_error', (ctx, err) => console.error('[as] server_error', err));
  p.on('grant.error', (ctx, err) => console.error('[as] grant.error', err.message, err.error_description ?? ''));
  p.on('authorization.error', (ctx, err) => console.error('[as] authorization.error', err.message, err.error_description ?? ''));
  p.on('registration_create.error', (ctx, err) => console.error('[as] registration.error', err.message, err.error_description ?? ''));
  p.on('registration_create.success', () => { state.counters.registrations += 1; });
  return p;
}

// Auto-approving interaction: login as state.interaction.accountId (or login_hint), grant every requested scope.
async function handleInteraction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session, grantId } = details;
  if (state.interaction.mode === 'deny') {
    return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'denied by test AS' }, { mergeWithLastSubmission: false });
  }
  if (prompt.name === 'login') {
    const accountId = params.login_hint || state.interaction.accountId;
    return provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
  }
  if (prompt.name === 'consent') {
    const grant = grantId
      ? await provider.Grant.find(grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    const d = prompt.details;
    if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
    if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
    if (d.missingResourceScopes) {
      for (const [indicator, scopes] of Object.entries(d.missingResourceScopes)) grant.addResourceScope(indicator, scopes.join(' '));
    }
    return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }
  res.writeHead(501, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `prompt ${prompt.name} not handled` }));
}

async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}
function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}
function publicState() {
  return {
    issuer, alg: state.alg, ttl: state.ttl, audience: state.audience ?? null, scopes: state.scopes,
    kids: { RSA: currentKid('RSA'), EC: currentKid('EC'), OKP: currentKid('OKP') },
    jwksKids: state.keys.map((k) => k.kid),
    jwksStatus: state.jwksStatus, counters: state.counters, interaction: state.interaction,
  };
}

async function handleControl(req, res, path) {
  if (req.method === 'GET' && path === '/__control/state') return sendJson(res, 200, publicState());
  if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST only' });
  const body = await readJson(req);
  switch (path) {
    case '/__control/rotate': {
      state.generation += 1;
      const ktys = body.kty ? [body.kty] : ['RSA', 'EC', 'OKP'];
      const fresh = await Promise.all(ktys.map(newKey));
      const old = body.dropOld ? state.keys.filter((k) => !ktys.includes(k.kty)) : state.keys;
      state.keys = [...fresh, ...old]; // first key of a kty is the one used for signing
      provider = buildProvider();
      return sendJson(res, 200, publicState());
    }
    case '/__control/jwks':
      state.jwksStatus = Number(body.status ?? 200);
      return sendJson(res, 200, publicState());
    case '/__control/config':
      if (body.alg !== undefined) state.alg = body.alg;
      if (body.ttl !== undefined) state.ttl = Number(body.ttl);
      if (body.audience !== undefined) state.audience = body.audience || undefined;
      if (body.scopes !== undefined) { state.scopes = body.scopes.split(' ').filter(Boolean); provider = buildProvider(); }
      return sendJson(res, 200, publicState());
    case '/__control/plan':
      state.plans.set(body.subject, body.plan);
      return sendJson(res, 200, { ok: true });
    case '/__control/interaction':
      Object.assign(state.interaction, body);
      return sendJson(res, 200, publicState());
    default:
      return sendJson(res, 404, { error: 'unknown control path' });
  }
}

const server = http.createServer(async (req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  try {
    if (path.startsWith('/__control/')) return await handleControl(req, res, path);
    if (path.startsWith('/interaction/')) return await handleInteraction(req, res);
    if (path === '/jwks') {
      state.counters.jwksRequests += 1;
      if (state.jwksStatus !== 200) return sendJson(res, state.jwksStatus, { error: 'jwks unavailable (test)' });
    }
    if (path === '/token') state.counters.tokenRequests += 1;
    return provider.callback()(req, res);
  } catch (err) {
    console.error('[as] handler error', err);
    if (!res.headersSent) sendJson(res, 500, { error: 'server_error', error_description: String(err?.message ?? err) });
  }
});

state.keys = await Promise.all(['RSA', 'EC', 'OKP'].map(newKey));
await new Promise((resolve) => server.listen(Number(env.AS_PORT || 0), '127.0.0.1', resolve));
issuer = `http://127.0.0.1:${server.address().port}`;
provider = buildProvider();

process.stdout.write(`${JSON.stringify({
  issuer,
  port: server.address().port,
  jwks_uri: `${issuer}/jwks`,
  token_endpoint: `${issuer}/token`,
  registration_endpoint: `${issuer}/reg`,
  control: `${issuer}/__control`,
  cc_client: ccClient,
  scopes: state.scopes,
  alg: state.alg,
})}\n`);

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 500).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (env.AS_EXIT_ON_STDIN_END === '1') {
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}
