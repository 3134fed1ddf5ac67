import type { SourceDefinition } from '../source-config';
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

/** The headers of a source's own credentials (never the caller's). */
export function authHeaders(definition: SourceDefinition): Record<string, string> {
  const auth = definition.auth;
  if (!auth) return {};
  return auth.type === 'bearer'
    ? { Authorization: `Bearer ${auth.token}` }
    : { [auth.name]: auth.value };
}

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
      timeoutMs: definition.timeoutMs,
      maxResultBytes: context.maxResultBytes,
      fetchUrl: context.refuseUrl,
    }),
};
