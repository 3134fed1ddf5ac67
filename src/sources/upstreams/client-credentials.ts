import {
  ClientCredentialsProvider,
  fetchToken,
  OAuthError,
  type AuthProvider,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { readBounded } from '../../kernel/http/bounded-body';
import { UpstreamError } from './upstream';

/** A source's OAuth client: its authorization server's token endpoint and its own credentials. */
export interface ClientCredentialsOptions {
  source: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  /** RFC 8707's resource indicator, for an authorization server that asks for one. */
  resource?: string;
  /** The token request's whole exchange ends after this long. */
  timeoutMs: number;
  /** The target rules, checked before the request; throws when the URL is refused. */
  checkUrl: (url: URL) => Promise<void>;
  /** The clock the tokens' lifetimes are read with. */
  now?: () => number;
}

/** A token endpoint's answer longer than this is refused (a token answer is a few kB). */
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;
/** A token is used until this much of its lifetime is left (at most a minute), then fetched anew. */
const RENEW_SHARE = 0.1;
const MAX_RENEW_MARGIN_MS = 60_000;
/** A token whose answer says no lifetime is kept this long (or until the upstream refuses it). */
const UNSTATED_LIFETIME_MS = 3_600_000;
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * The service's own OAuth client credentials towards an upstream (RFC 6749 §4.4, the client's
 * secret sent as HTTP Basic): the token asked of the source's authorization server by the MCP
 * SDK's client-credentials provider, cached until shortly before it expires, one request at a
 * time however many calls wait for it, and dropped when the upstream refuses it (401), so that the
 * transport's one retry (or the OpenAPI kind's) goes with a new one. The token request follows
 * the source URL rules, is bounded in time and size and never follows a redirect.
 */
export class ClientCredentials implements AuthProvider {
  private current?: { token: string; renewAt: number };
  private pending?: Promise<string>;
  private readonly now: () => number;

  constructor(private readonly options: ClientCredentialsOptions) {
    this.now = options.now ?? Date.now;
  }

  token(): Promise<string> {
    if (this.current && this.now() < this.current.renewAt) {
      return Promise.resolve(this.current.token);
    }
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** The upstream refused the token: the next call asks for a new one. */
  onUnauthorized(): Promise<void> {
    this.current = undefined;
    return Promise.resolve();
  }

  private async fetchToken(): Promise<string> {
    const { source, tokenUrl, clientId, clientSecret, scope, resource } = this.options;
    const issuer = new URL(tokenUrl).origin;
    const provider = new ClientCredentialsProvider({
      clientId,
      clientSecret,
      scope,
      expectedIssuer: issuer,
    });
    const asked = this.now();
    let tokens: Awaited<ReturnType<typeof fetchToken>>;
    try {
      tokens = await fetchToken(provider, issuer, {
        metadata: {
          issuer,
          token_endpoint: tokenUrl,
          authorization_endpoint: tokenUrl,
          response_types_supported: [],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        },
        resource,
        scope,
        fetchFn: this.fetchFn(),
      });
    } catch (error) {
      throw new UpstreamError(
        'unavailable',
        `Source ${source}: its token endpoint refused the client credentials (${reasonOf(error)}).`,
      );
    }
    const lifetimeMs =
      tokens.expires_in === undefined ? UNSTATED_LIFETIME_MS : tokens.expires_in * 1000;
    const margin = Math.min(MAX_RENEW_MARGIN_MS, lifetimeMs * RENEW_SHARE);
    this.current = { token: tokens.access_token, renewAt: asked + lifetimeMs - margin };
    return tokens.access_token;
  }

  /** The token request's fetch: the URL checked, no redirect followed, time and size bounded. */
  private fetchFn(): FetchLike {
    const { checkUrl, timeoutMs } = this.options;
    return async (url, init) => {
      await checkUrl(new URL(String(url)));
      const response = await fetch(url, {
        ...init,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = await readBounded(response, MAX_TOKEN_ANSWER_BYTES);
      return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  }
}

/** What a failed token request says: the OAuth error's code and words, or the failure's, short. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const said = OAuthError.isInstance(error) ? `${error.code}: ${message}` : message;
  return said.replace(/\s+/g, ' ').slice(0, 200) || 'no reason given';
}
