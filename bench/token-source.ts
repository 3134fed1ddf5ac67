import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/**
 * What authorises a token target's requests, and the service environment it needs: what a token
 * source (this file's, or BENCH_TOKEN_MODULE's) resolves to.
 */
export interface TokenSource {
  authorization: string;
  env?: Record<string, string>;
  stop?: () => void | Promise<void>;
}
export type TokenSourceFn = (context: {
  targetId: string;
  appDir: string;
  dataDir: string;
  key: string;
}) => Promise<TokenSource>;

/**
 * The bench's own token source for the `oauth-…` targets (used unless BENCH_TOKEN_CMD or
 * BENCH_TOKEN_MODULE names another): an issuer on 127.0.0.1 answering OpenID discovery and its
 * JWKS (one RS256 key), and one access token it signed for the service, as a provider's would be
 * (`iss`, `aud` the service's PUBLIC_URL, `sub`, `client_id`, `scope`, an hour's `exp`). The
 * service's principal gets a plan whose rate limit the load cannot reach, as the key target's key.
 */
export const tokenSource: TokenSourceFn = async ({ targetId }) => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', use: 'sig', alg: 'RS256' };
  const server = createServer((req, res) => {
    const json = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/openid-configuration') {
      return json({ issuer, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'] });
    }
    if (req.url === '/jwks') return json({ keys: [jwk] });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const publicUrl = 'http://bench.invalid';
  const token = await new SignJWT({
    sub: `bench-${targetId}`,
    client_id: 'bench',
    scope: 'services:execute',
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'bench' })
    .setIssuer(issuer)
    .setAudience(publicUrl)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  const source: TokenSource = {
    authorization: `Bearer ${token}`,
    env: {
      PUBLIC_URL: publicUrl,
      OAUTH_ISSUERS: issuer,
      OAUTH_DEFAULT_PLAN: 'unlimited',
      PLAN_UNLIMITED_RATE_LIMIT: '100000000',
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return source;
};
