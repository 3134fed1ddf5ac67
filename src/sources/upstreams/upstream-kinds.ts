import type { SourceDefinition } from '../source-config';
import { ClientCredentials } from './client-credentials';
import { McpUpstream } from './mcp/mcp.upstream';
import { OpenApiUpstream } from './openapi/openapi.upstream';
import type { Upstream } from './upstream';

/** What every kind of upstream is built with beside its source's definition. */
export interface UpstreamContext {
  maxResultBytes: number;
  /** The target rules, checked before each connection; throws when the URL is refused. */
  checkUrl: (url: URL) => Promise<void>;
  /** The same rules without the address lookup, for a kind that checks before each request. */
  refuseUrl: (url: URL) => void;
}

/** The headers of a source's own static credentials (never the caller's). */
export function authHeaders(definition: SourceDefinition): Record<string, string> {
  const auth = definition.auth;
  if (auth?.type === 'bearer') return { Authorization: `Bearer ${auth.token}` };
  if (auth?.type === 'header') return { [auth.name]: auth.value };
  return {};
}

/** The source's OAuth client, when its credentials are a client's (its tokens asked for on use). */
function clientCredentials(
  definition: SourceDefinition,
  context: UpstreamContext,
): ClientCredentials | undefined {
  const auth = definition.auth;
  if (auth?.type !== 'oauth_client_credentials') return undefined;
  return new ClientCredentials({
    source: definition.name,
    tokenUrl: auth.token_url,
    clientId: auth.client_id,
    clientSecret: auth.client_secret,
    scope: auth.scope,
    resource: auth.resource,
    timeoutMs: Math.min(definition.timeoutMs, TOKEN_TIMEOUT_MS),
    checkUrl: context.checkUrl,
  });
}

/** A token request ends after this long at most (or the source's timeout, if shorter). */
const TOKEN_TIMEOUT_MS = 10_000;

/** How each kind of source is reached: the factory by `kind`. */
export const UPSTREAM_KINDS: Partial<
  Record<
    SourceDefinition['kind'],
    (definition: SourceDefinition, context: UpstreamContext) => Upstream
  >
> = {
  mcp: (definition, context) =>
    new McpUpstream({
      source: definition.name,
      url: definition.url,
      command: definition.command,
      args: definition.args,
      env: definition.env,
      headers: authHeaders(definition),
      credentials: clientCredentials(definition, context),
      timeoutMs: definition.timeoutMs,
      maxResultBytes: context.maxResultBytes,
      checkUrl: context.checkUrl,
    }),
  openapi: (definition, context) =>
    new OpenApiUpstream({
      source: definition.name,
      document: definition.document ?? '',
      baseUrl: definition.baseUrl ?? '',
      headers: authHeaders(definition),
      credentials: clientCredentials(definition, context),
      timeoutMs: definition.timeoutMs,
      maxResultBytes: context.maxResultBytes,
      fetchUrl: context.refuseUrl,
    }),
};
