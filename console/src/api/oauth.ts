/**
 * Signing in through an issuer (docs/console.md): authorization code with PKCE, as a public
 * client. The console learns from the service whether it may (`/console/config.json`), reads the
 * issuer's metadata, sends the browser to its authorization endpoint, and on the way back
 * (`/console/callback`) trades the code for an access token, which it then keeps as it keeps a
 * key. The code verifier and state live in sessionStorage for the round trip only.
 */
import { ApiFailure } from './client';

export interface ConsoleOAuth {
  issuer: string;
  client_id: string;
  redirect_uri: string;
  resource: string;
  scope: string;
}

interface Pending {
  state: string;
  verifier: string;
  tokenEndpoint: string;
  oauth: ConsoleOAuth;
}

const PENDING = 'tis-console-oauth';

/** How the console may sign in through an issuer; null when it may not. */
export async function consoleOAuth(): Promise<ConsoleOAuth | null> {
  const response = await fetch('/console/config.json');
  if (!response.ok)
    throw new ApiFailure(response.status, 'The console could not read its configuration.');
  return ((await response.json()) as { oauth: ConsoleOAuth | null }).oauth;
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomText(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** The issuer's metadata: RFC 8414 first, then OpenID Connect Discovery (as the service reads it). */
async function metadataOf(
  issuer: string,
): Promise<{ authorization_endpoint: string; token_endpoint: string }> {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const candidates = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
  ];
  for (const candidate of candidates) {
    try {
      const response = await fetch(candidate);
      if (!response.ok) continue;
      const metadata = (await response.json()) as Record<string, unknown>;
      if (
        metadata.issuer === issuer &&
        typeof metadata.authorization_endpoint === 'string' &&
        typeof metadata.token_endpoint === 'string'
      ) {
        return {
          authorization_endpoint: metadata.authorization_endpoint,
          token_endpoint: metadata.token_endpoint,
        };
      }
    } catch {
      // The next form of the metadata's address.
    }
  }
  throw new ApiFailure(0, `The authorization server ${issuer} did not give its metadata.`);
}

/** Sends the browser to the issuer to sign in. */
export async function beginSignIn(oauth: ConsoleOAuth): Promise<void> {
  const metadata = await metadataOf(oauth.issuer);
  const pending: Pending = {
    state: randomText(),
    verifier: randomText(),
    tokenEndpoint: metadata.token_endpoint,
    oauth,
  };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const target = new URL(metadata.authorization_endpoint);
  target.search = new URLSearchParams({
    response_type: 'code',
    client_id: oauth.client_id,
    redirect_uri: oauth.redirect_uri,
    scope: oauth.scope,
    resource: oauth.resource,
    state: pending.state,
    code_challenge: await challengeOf(pending.verifier),
    code_challenge_method: 'S256',
  }).toString();
  window.location.assign(target.toString());
}

/** Back from the issuer: the access token the code is traded for. */
export async function completeSignIn(query: string): Promise<string> {
  const params = new URLSearchParams(query);
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  const error = params.get('error');
  if (error) {
    throw new ApiFailure(
      0,
      `The authorization server refused: ${params.get('error_description') ?? error}.`,
    );
  }
  const pending = raw ? (JSON.parse(raw) as Pending) : undefined;
  const code = params.get('code');
  if (!pending || !code || params.get('state') !== pending.state) {
    throw new ApiFailure(
      0,
      'This sign-in was not started here, or was already used: sign in again.',
    );
  }
  const response = await fetch(pending.tokenEndpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: pending.oauth.redirect_uri,
      client_id: pending.oauth.client_id,
      code_verifier: pending.verifier,
      resource: pending.oauth.resource,
    }),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok || typeof body.access_token !== 'string') {
    const why =
      typeof body.error_description === 'string'
        ? body.error_description
        : typeof body.error === 'string'
          ? body.error
          : `HTTP ${response.status}`;
    throw new ApiFailure(response.status, `The authorization server gave no token (${why}).`);
  }
  return body.access_token;
}
