import { once } from 'node:events';
import { createServer, Server, ServerResponse } from 'node:http';
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
 * What the issuer answers on its metadata or JWKS path: its document; the document padded with
 * whitespace (still JSON) to `bytes`, streamed in chunks as the client reads them, with a
 * Content-Length when `declared`; or a 302 to a path that serves the document.
 */
export type IssuerAnswer =
  | { kind: 'document' }
  | { kind: 'padded'; bytes: number; declared?: boolean }
  | { kind: 'redirect' };

/** A padded answer as it went: the bytes written before the end or before the client closed. */
export interface StreamedAnswer {
  path: string;
  bytes: number;
  written: number;
  /** Settles once the connection closed or the answer ended; true when the client closed first. */
  closedEarly: Promise<boolean>;
}

const PADDING = Buffer.alloc(64 * 1024, 0x20);

/** Writes `document` padded to `bytes`, a chunk at a time as the connection drains. */
function streamPadded(res: ServerResponse, document: string, answer: StreamedAnswer): void {
  const head = Buffer.from(document.slice(0, -1));
  let closed = false;
  const closing = new Promise<void>((resolve) => res.once('close', resolve));
  answer.closedEarly = closing.then(() => {
    closed = true;
    return !res.writableFinished;
  });
  const write = (chunk: Buffer) => {
    answer.written += chunk.length;
    return res.write(chunk);
  };
  void (async () => {
    write(head);
    let left = answer.bytes - head.length - 1;
    while (left > 0 && !closed) {
      const chunk = PADDING.subarray(0, Math.min(PADDING.length, left));
      left -= chunk.length;
      if (!write(chunk)) await Promise.race([once(res, 'drain').catch(() => undefined), closing]);
    }
    if (closed) return;
    answer.written += 1;
    res.end('}');
  })();
}

/**
 * An issuer whose tokens the tests write themselves, for what a real authorization server will not
 * issue on demand: an expired token, one not yet valid, one signed by a key it does not publish,
 * `alg: none`, HS256. It serves what the service reads of an issuer (OpenID discovery and the
 * JWKS, on loopback) and counts the JWKS fetches; `answers` makes it hostile (an answer too long,
 * a redirect), and `streamed` shows how much of a padded answer was written.
 */
export class TokenIssuer {
  issuer = '';
  jwksFetches = 0;
  answers: { metadata: IssuerAnswer; jwks: IssuerAnswer } = {
    metadata: { kind: 'document' },
    jwks: { kind: 'document' },
  };
  readonly streamed: StreamedAnswer[] = [];
  /** The path of every request it was sent, in order. */
  readonly requests: string[] = [];
  private server?: Server;
  private keys: { kid: string; privateKey: CryptoKey; jwk: JWK }[] = [];

  static async start(answers?: Partial<TokenIssuer['answers']>): Promise<TokenIssuer> {
    const issuer = new TokenIssuer();
    issuer.answers = { ...issuer.answers, ...answers };
    await issuer.addKey();
    const server = createServer((req, res) => {
      const path = req.url ?? '';
      issuer.requests.push(path);
      const document = (name: 'metadata' | 'jwks') => issuer.document(name, path, res);
      if (path === '/.well-known/openid-configuration') return document('metadata');
      if (path === '/moved/.well-known/openid-configuration') return issuer.send(res, 'metadata');
      if (path === '/jwks') {
        issuer.jwksFetches++;
        return document('jwks');
      }
      if (path === '/moved/jwks') return issuer.send(res, 'jwks');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer.server = server;
    issuer.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return issuer;
  }

  private body(name: 'metadata' | 'jwks'): string {
    if (name === 'jwks') return JSON.stringify({ keys: this.keys.map(({ jwk }) => jwk) });
    return JSON.stringify({
      issuer: this.issuer,
      jwks_uri: `${this.issuer}/jwks`,
      response_types_supported: ['code'],
    });
  }

  private send(res: ServerResponse, name: 'metadata' | 'jwks'): void {
    res.writeHead(200, { 'content-type': 'application/json' }).end(this.body(name));
  }

  /** The answer `answers` says for the document `name` at `path`. */
  private document(name: 'metadata' | 'jwks', path: string, res: ServerResponse): void {
    const answer = this.answers[name];
    if (answer.kind === 'document') return this.send(res, name);
    if (answer.kind === 'redirect') {
      res.writeHead(302, { location: `${this.issuer}/moved${path}` }).end();
      return;
    }
    const streamed: StreamedAnswer = {
      path,
      bytes: answer.bytes,
      written: 0,
      closedEarly: Promise.resolve(false),
    };
    this.streamed.push(streamed);
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(answer.declared ? { 'content-length': answer.bytes } : {}),
    });
    streamPadded(res, this.body(name), streamed);
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
