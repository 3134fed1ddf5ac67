/**
 * Property-based fuzzing of bearer tokens with OAuth configured (the REST fuzz's harness and
 * properties: an answer, never a 5xx, errors as {detail}, no uncaught exception, /health 200, and
 * afterwards greet works, nothing polluted, the configuration unchanged). The tokens: JWT-shaped
 * with any header and claims (algorithms allowed and not, kids known and not, claims of every JSON
 * type, `__proto__` among the names), some of them signed by the configured issuer's own key;
 * base64 junk; huge ones. Sent to a tool route, /mcp and /auth/me.
 *
 * Besides the harness's checks, every answer must be what the token earns: 200 only for a token
 * the issuer signed with every claim good for the route's resource, 401 `Invalid access token`
 * (or 400, 431 for what no token can be) for the rest; and the storm of unknown kids costs the
 * issuer at most one JWKS fetch (OAUTH_JWKS_REFETCH_MS: a minute).
 */
import fc from 'fast-check';
import { base64url } from 'jose';
import type { Outcome } from '../support/fuzz/client';
import { Fuzzer } from '../support/fuzz/harness';
import { withoutControls } from '../support/fuzz/headers';
import { MCP_ACCEPT, PROTO_KEYS } from '../support/fuzz/requests';
import { TokenIssuer } from '../support/oauth/token-issuer';
import { freePort } from '../support/redis';

/** A token and what it should get: `good` on a resource, or refused. */
interface TokenCase {
  token: string;
  /** The resource whose audience it names when everything else in it is good. */
  goodFor?: 'api' | 'mcp';
}

interface BearerRequest {
  method: string;
  target: string;
  headers: [string, string][];
  body?: string;
  /** What the route is (its resource), and the token sent. */
  route: 'greet' | 'mcp' | 'me';
  case: TokenCase;
}

const json = (value: unknown) => base64url.encode(JSON.stringify(value));

describe('fuzzing bearer tokens with OAuth on (e2e)', () => {
  let issuer: TokenIssuer;
  let fuzzer: Fuzzer;
  let base: string;
  /** Tokens the issuer really signed: good ones, and ones with a bad claim. */
  const signed: TokenCase[] = [];

  beforeAll(async () => {
    issuer = await TokenIssuer.start();
    base = `http://127.0.0.1:${await freePort()}`;
    fuzzer = new Fuzzer({
      PUBLIC_URL: base,
      OAUTH_ISSUERS: issuer.issuer,
      OAUTH_DEFAULT_PLAN: 'unlimited',
      OAUTH_PLAN_CLAIM: 'plan',
    });
    await fuzzer.start();
    const now = Math.floor(Date.now() / 1000);
    const scope = 'services:read services:execute';
    const goods: [Record<string, unknown>, 'api' | 'mcp'][] = [
      [{ sub: 'fuzz', aud: base, scope }, 'api'],
      [{ sub: 'fuzz', aud: `${base}/mcp`, scope }, 'mcp'],
      [{ sub: 'fuzz-scp', aud: [base, 'https://else.example'], scp: scope.split(' ') }, 'api'],
      [{ sub: 'fuzz', aud: base, scope, plan: '__proto__' }, 'api'],
      [{ sub: 'fuzz', aud: base, scope, plan: 'constructor', client_id: '__proto__' }, 'api'],
    ];
    for (const [claims, goodFor] of goods) {
      signed.push({ token: await issuer.sign(claims), goodFor });
    }
    const bads: Record<string, unknown>[] = [
      { sub: 'fuzz', aud: base, scope, exp: now - 3600 },
      { sub: 'fuzz', aud: base, scope, nbf: now + 3600 },
      { sub: 'fuzz', aud: 'https://else.example', scope },
      { sub: 'fuzz', aud: base, scope, iss: 'https://else.example' },
      { sub: 42, aud: base, scope },
      { sub: { __proto__: { polluted: 1 } }, aud: base, scope },
      { aud: base, scope },
      { sub: 'fuzz', aud: base, scope, exp: '9999999999' },
      { sub: 'fuzz', aud: base, scope, exp: 1e308 },
      { sub: 'fuzz', aud: { __proto__: base }, scope },
    ];
    for (const claims of bads) signed.push({ token: await issuer.sign(claims) });
  }, 60_000);

  afterAll(async () => {
    await fuzzer?.close();
    await issuer?.stop();
  });

  /** Any JSON value, `__proto__` and friends among the keys. */
  const anyJson = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.double(),
      fc.integer(),
      fc.string({ maxLength: 30 }),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(
        fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTO_KEYS)),
        tie('value'),
        {
          maxKeys: 4,
        },
      ),
    ),
  })).value;

  const tokens = (): fc.Arbitrary<TokenCase> => {
    const header = fc.record(
      {
        alg: fc.oneof(
          fc.constantFrom('RS256', 'PS256', 'ES256', 'EdDSA', 'none', 'HS256', 'RS1', ''),
          anyJson,
        ),
        kid: fc.oneof(fc.constant(issuer.firstKid), fc.string({ maxLength: 40 }), anyJson),
        typ: fc.constantFrom('at+jwt', 'JWT', 'jwt'),
        crit: anyJson,
      },
      { requiredKeys: ['alg'] },
    );
    const claims = fc.record(
      {
        iss: fc.oneof(fc.constant(issuer.issuer), fc.webUrl(), anyJson),
        aud: fc.oneof(fc.constant(base), fc.constant(`${base}/mcp`), anyJson),
        sub: fc.oneof(fc.string({ maxLength: 20 }), anyJson),
        exp: fc.oneof(fc.integer(), fc.double(), anyJson),
        nbf: fc.oneof(fc.integer(), anyJson),
        scope: fc.oneof(fc.constantFrom('services:execute', '* admin:write'), anyJson),
        scp: anyJson,
        client_id: anyJson,
        plan: fc.oneof(fc.constantFrom(...PROTO_KEYS, 'unlimited'), anyJson),
      },
      { requiredKeys: [] },
    );
    const signature = fc.oneof(
      fc.constant(''),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => base64url.encode(bytes)),
    );
    const jwtShaped = fc
      .tuple(header, claims, signature)
      .map(([h, c, s]) => ({ token: `${json(h)}.${json(c)}.${s}` }));
    const junk = fc
      .oneof(
        fc.base64String({ maxLength: 200 }),
        fc.string({ unit: 'binary-ascii', maxLength: 100 }).map(withoutControls),
        fc.stringMatching(/^[A-Za-z0-9_-]{0,60}(\.[A-Za-z0-9_-]{0,60}){0,4}$/),
        fc.constantFrom('.', '..', '...', 'a.b.c', 'sk_', 'sk_xyz', 'Bearer', 'null'),
        fc
          .integer({ min: 8_000, max: 20_000 })
          .map((n) => `${json({ alg: 'RS256' })}.${'A'.repeat(n)}.x`),
        fc.integer({ min: 8_000, max: 70_000 }).map((n) => 'x'.repeat(n)),
      )
      .map((token) => ({ token }));
    return fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...signed) },
      { weight: 5, arbitrary: jwtShaped },
      { weight: 3, arbitrary: junk },
    );
  };

  const requests = (): fc.Arbitrary<BearerRequest> =>
    fc
      .tuple(fc.constantFrom('greet' as const, 'mcp' as const, 'me' as const), tokens())
      .map(([route, tokenCase]) => {
        const authorization: [string, string] = ['Authorization', `Bearer ${tokenCase.token}`];
        if (route === 'greet') {
          return {
            method: 'POST',
            target: '/api/v1/services/greet',
            headers: [authorization, ['Content-Type', 'application/json']],
            body: '{"name":"Fuzz"}',
            route,
            case: tokenCase,
          };
        }
        if (route === 'mcp') {
          return {
            method: 'POST',
            target: '/mcp',
            headers: [authorization, ['Content-Type', 'application/json'], ...MCP_ACCEPT],
            body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
            route,
            case: tokenCase,
          };
        }
        return {
          method: 'GET',
          target: '/api/v1/auth/me',
          headers: [authorization],
          route,
          case: tokenCase,
        };
      });

  /** What the token earns on the route: 200 only when it is good for the route's resource. */
  function earned(req: BearerRequest, outcome: Outcome): string[] {
    if (outcome.kind !== 'answer') return [];
    const { status, body } = outcome.res;
    const resource = req.route === 'mcp' ? 'mcp' : 'api';
    const good = req.case.goodFor === resource;
    if (good) return status === 200 ? [] : [`a good token got ${status}: ${body.slice(0, 200)}`];
    if (status === 431 || status === 400) return [];
    if (status !== 401) return [`a token that is not good here got ${status}`];
    const detail = (JSON.parse(body) as { detail: unknown }).detail;
    const expected = req.case.token.startsWith('sk_') ? 'Invalid API key' : 'Invalid access token';
    return detail === expected || detail === 'Not authenticated'
      ? []
      : [`401 with ${JSON.stringify(detail)}, not ${expected}`];
  }

  it('answers every bearer token as it deserves, and fetches the keys at most once', async () => {
    const fetchesBefore = issuer.jwksFetches;
    await fuzzer.check(requests(), 400, {
      verify: (req, outcome) => Promise.resolve(earned(req, outcome)),
    });
    expect(issuer.jwksFetches - fetchesBefore).toBeLessThanOrEqual(1);
    await fuzzer.expectUnharmed();
  });
});
