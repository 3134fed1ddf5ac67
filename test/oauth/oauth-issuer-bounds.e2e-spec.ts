import { bearer, startApp, TestApp } from '../support/app';
import { IssuerAnswer, TokenIssuer } from '../support/oauth/token-issuer';
import { freePort } from '../support/redis';

const MIB = 1024 * 1024;
/** What a hostile issuer offers: far more than OAUTH_ISSUER_MAX_BYTES' default (1 MiB). */
const WHOLE = 64 * MIB;
const UNAVAILABLE =
  /^Service temporarily unavailable: the authorization server's keys cannot be fetched\. Retry after \d+ seconds?\.$/;

/**
 * Issuers are bounded (docs/oauth.md#issuers-are-bounded): an issuer's metadata and JWKS answers
 * are read up to OAUTH_ISSUER_MAX_BYTES and no further, and a redirect is refused, not followed;
 * either is the issuer's failure, logged, and its tokens are 503 as an unreachable issuer's. Each
 * issuer here is a loopback server (TokenIssuer) that streams what it is told to, as fast as the
 * service reads it, and counts the bytes it wrote before the service closed the connection.
 */
describe('OAuth: issuers are bounded (e2e)', () => {
  let base: string;
  let t: TestApp;
  const issuers: Record<string, TokenIssuer> = {};
  const answers: Record<string, Partial<Record<'metadata' | 'jwks', IssuerAnswer>>> = {
    // Just under the limit: read whole and used.
    within: {
      metadata: { kind: 'padded', bytes: MIB - 1024 },
      jwks: { kind: 'padded', bytes: MIB - 1024, declared: true },
    },
    longMetadata: { metadata: { kind: 'padded', bytes: WHOLE } },
    longJwks: { jwks: { kind: 'padded', bytes: WHOLE } },
    declaredJwks: { jwks: { kind: 'padded', bytes: WHOLE, declared: true } },
    movedMetadata: { metadata: { kind: 'redirect' } },
    movedJwks: { jwks: { kind: 'redirect' } },
  };

  beforeAll(async () => {
    for (const [name, answer] of Object.entries(answers)) {
      issuers[name] = await TokenIssuer.start(answer);
    }
    base = `http://127.0.0.1:${await freePort()}`;
    t = await startApp({
      env: {
        PUBLIC_URL: base,
        // A padded megabyte from a loopback issuer took over 5 s at a load of 20 on 2 cores.
        OAUTH_ISSUER_TIMEOUT_MS: '60000',
        OAUTH_ISSUERS: Object.values(issuers)
          .map((issuer) => issuer.issuer)
          .join(','),
      },
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await Promise.all(Object.values(issuers).map((issuer) => issuer.stop()));
  });

  const greet = async (name: string) => {
    const credential = await issuers[name].sign({
      sub: 'ada',
      aud: base,
      scope: 'services:execute',
    });
    return t.http().post('/api/v1/services/greet').set(bearer(credential)).send({ name: 'Ada' });
  };
  const warnings = (name: string) =>
    t.logs
      .records()
      .filter(
        (r) =>
          r.level === 'warn' &&
          String(r.msg).includes(`Authorization server ${issuers[name].issuer} cannot be read`),
      )
      .map((r) => String(r.msg));
  const expectUnavailable = async (name: string) => {
    for (let i = 0; i < 2; i++) {
      const res = await greet(name);
      expect([name, res.status]).toEqual([name, 503]);
      expect(res.body.detail).toMatch(UNAVAILABLE);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
  };

  it('reads an answer within OAUTH_ISSUER_MAX_BYTES whole: its tokens are good', async () => {
    const res = await greet('within');
    expect([res.status, res.body]).toEqual([200, { message: 'Hello, Ada!', times: 1 }]);
    const streamed = issuers.within.streamed;
    expect(streamed.map((s) => s.path)).toEqual(['/.well-known/openid-configuration', '/jwks']);
    expect(await Promise.all(streamed.map((s) => s.closedEarly))).toEqual([false, false]);
    expect(streamed.map((s) => s.written)).toEqual([MIB - 1024, MIB - 1024]);
    expect(warnings('within')).toEqual([]);
  });

  it.each([
    ['longMetadata', '/.well-known/openid-configuration'],
    ['longJwks', '/jwks'],
    ['declaredJwks', '/jwks'],
  ])(
    'refuses a longer answer (%s) unread past the limit: its tokens 503, the failure logged',
    async (name, path) => {
      await expectUnavailable(name);
      const [streamed] = issuers[name].streamed.filter((s) => s.path === path);
      // The service closed the connection: what was written is the limit and what the sockets
      // between held, a small part of the whole.
      expect(await streamed.closedEarly).toBe(true);
      expect(streamed.written).toBeLessThan(WHOLE / 4);
      const [warning, ...more] = warnings(name);
      expect(more).toEqual([]);
      expect(warning).toContain('an answer longer than 1048576 bytes (OAUTH_ISSUER_MAX_BYTES)');
      expect(warning).toContain('its tokens are answered 503 until it can');
    },
  );

  it.each([['movedMetadata'], ['movedJwks']])(
    'refuses a redirect (%s), never following it: its tokens 503, the failure logged',
    async (name) => {
      await expectUnavailable(name);
      expect(issuers[name].requests.filter((path) => path.startsWith('/moved'))).toEqual([]);
      const [warning] = warnings(name);
      expect(warning).toContain('a redirect (HTTP 302), not followed');
      expect(warning).not.toContain('/moved');
    },
  );
});
