import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * A real OAuth 2.1 / OpenID authorization server on loopback: oidc-provider (the certified OpenID
 * provider for Node), started as a child process (authorization-server.mjs: ESM, koa), with
 * resource indicators (RFC 8707) so that it issues JWT access tokens for the service's resources,
 * dynamic client registration, authorization code with PKCE, client credentials (client
 * `cc-client`), a `plan` claim, and test-only control routes (key rotation, a failing JWKS).
 * It exits with its parent: its stdin closes when the Jest worker goes.
 */
export interface AuthorizationServer {
  issuer: string;
  jwksUri: string;
  /** A test-only control route: `rotate`, `jwks`, `config`, `plan`, `interaction`, `state`. */
  control<T = ControlState>(path: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export interface ControlState {
  kids: { RSA: string; EC: string; OKP: string };
  jwksKids: string[];
  alg: string;
  counters: { jwksRequests: number; tokenRequests: number; registrations: number };
}

/** The service's own scopes, as the server offers them (DCR and tokens carry only these). */
export const SERVICE_SCOPES =
  'services:read services:execute services:execute:greet admin:read admin:write';

export async function startAuthorizationServer(
  env: Record<string, string> = {},
): Promise<AuthorizationServer> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(__dirname, 'authorization-server.mjs')],
    {
      env: { ...process.env, AS_EXIT_ON_STDIN_END: '1', AS_SCOPES: SERVICE_SCOPES, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`The authorization server did not start: ${stderr}`));
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The authorization server exited (${code}): ${stderr}`));
    });
    createInterface({ input: child.stdout! }).once('line', (first) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(first);
    });
  });
  const info = JSON.parse(line) as { issuer: string; jwks_uri: string };
  return {
    issuer: info.issuer,
    jwksUri: info.jwks_uri,
    async control<T>(path: string, body?: unknown): Promise<T> {
      const res = await fetch(
        `${info.issuer}/__control/${path}`,
        body === undefined
          ? {}
          : {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            },
      );
      if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A client-credentials token of `cc-client` for `resource` (RFC 8707), with `scope`. */
export async function clientCredentialsToken(
  issuer: string,
  options: { resource: string; scope?: string; clientId?: string; clientSecret?: string },
): Promise<string> {
  const { clientId = 'cc-client', clientSecret = 'cc-secret' } = options;
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    resource: options.resource,
  });
  if (options.scope) body.set('scope', options.scope);
  const res = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    },
    body,
  });
  const json = (await res.json()) as { access_token?: string };
  if (!res.ok || !json.access_token) {
    throw new Error(`token ${res.status}: ${JSON.stringify(json)}`);
  }
  return json.access_token;
}

/**
 * What a person's browser does with an authorization request: follows the server's redirects
 * (its login and consent, which this server approves), cookies kept, and returns the redirect back
 * to the client (`redirect_uri?code=…&state=…&iss=…`).
 */
export async function completeAuthorization(authorizationUrl: URL | string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  const server = url.origin;
  for (let hop = 0; hop < 10; hop++) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      if (/expires=Thu, 01 Jan 1970/i.test(set) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(
        `The authorization stopped at ${url.href}: ${res.status} ${await res.text()}`,
      );
    }
    await res.arrayBuffer();
    url = new URL(location, url);
    if (url.origin !== server) return url;
  }
  throw new Error('Too many redirects');
}
