import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  base64url,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';

/**
 * An issuer whose tokens the tests write themselves, for what a real authorization server will not
 * issue on demand: an expired token, one not yet valid, one signed by a key it does not publish,
 * `alg: none`, HS256. It serves what the service reads of an issuer (OpenID discovery and the
 * JWKS, on loopback) and counts the JWKS fetches.
 */
export class TokenIssuer {
  issuer = '';
  jwksFetches = 0;
  private server?: Server;
  private keys: { kid: string; privateKey: CryptoKey; jwk: JWK }[] = [];

  static async start(): Promise<TokenIssuer> {
    const issuer = new TokenIssuer();
    await issuer.addKey();
    const server = createServer((req, res) => {
      const json = (body: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/.well-known/openid-configuration') {
        return json({
          issuer: issuer.issuer,
          jwks_uri: `${issuer.issuer}/jwks`,
          response_types_supported: ['code'],
        });
      }
      if (req.url === '/jwks') {
        issuer.jwksFetches++;
        return json({ keys: issuer.keys.map(({ jwk }) => jwk) });
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer.server = server;
    issuer.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return issuer;
  }

  /** A new RS256 key, published in the JWKS; its kid. */
  async addKey(): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const kid = `test-${this.keys.length}-${Math.random().toString(16).slice(2, 10)}`;
    const jwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
    this.keys.push({ kid, privateKey, jwk });
    return kid;
  }

  /**
   * A signed token: `iss` this issuer, the claims given (`exp` an hour ahead unless given), signed
   * with the first published key, or with `key` under `kid` (a key it does not publish).
   */
  async sign(
    claims: JWTPayload & Record<string, unknown>,
    options: { kid?: string; key?: CryptoKey } = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const [published] = this.keys;
    return new SignJWT({ iss: this.issuer, iat: now, exp: now + 3600, ...claims })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: options.kid ?? published.kid })
      .sign(options.key ?? published.privateKey);
  }

  /** The same claims with `alg: none`, unsigned. */
  unsigned(claims: JWTPayload & Record<string, unknown>): string {
    const now = Math.floor(Date.now() / 1000);
    const part = (value: object) => base64url.encode(JSON.stringify(value));
    return `${part({ alg: 'none', typ: 'at+jwt' })}.${part({ iss: this.issuer, exp: now + 3600, ...claims })}.`;
  }

  /** The same claims signed HS256 with `secret` (the kid of a published key, if asked). */
  hs256(
    claims: JWTPayload & Record<string, unknown>,
    secret: string,
    kid?: string,
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.issuer, exp: now + 3600, ...claims })
      .setProtectedHeader({ alg: 'HS256', ...(kid ? { kid } : {}) })
      .sign(new TextEncoder().encode(secret));
  }

  get firstKid(): string {
    return this.keys[0].kid;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }
}

/** A key the issuer does not publish. */
export async function strayKey(): Promise<CryptoKey> {
  return (await generateKeyPair('RS256')).privateKey;
}
