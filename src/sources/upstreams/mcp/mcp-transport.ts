import {
  type AuthProvider,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { boundedFetch } from './mcp-exchange';
import { stdioTransport } from './mcp-stdio';

/** How an MCP upstream is reached: a Streamable HTTP URL, or a command started over stdio. */
export interface McpUpstreamOptions {
  source: string;
  url?: string;
  command?: string;
  args?: string[];
  /** The child's whole environment, PATH added (never the service's own). */
  env?: Record<string, string>;
  /** Sent with every HTTP request (the source's credentials; never the caller's). */
  headers?: Record<string, string>;
  /** The source's OAuth client: its token on every HTTP request, asked anew after a 401. */
  credentials?: AuthProvider;
  timeoutMs: number;
  maxResultBytes: number;
  /** Checks a URL before each request (the target rules); throws when it is refused. */
  checkUrl?: (url: URL) => Promise<void>;
}

/**
 * The connection's transport: Streamable HTTP with the source's headers or OAuth client, each
 * answer metered (boundedFetch, `listBytes` the bound of a message no exchange owns), redirects
 * kept to the same origin; or the command started as a child over stdio.
 */
export function upstreamTransport(options: McpUpstreamOptions, listBytes: number): Transport {
  const { url, command } = options;
  if (url !== undefined) {
    return new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: options.headers ?? {} },
      authProvider: options.credentials,
      redirectPolicy: 'same-origin',
      fetch: boundedFetch({
        source: options.source,
        maxBytes: listBytes,
        checkUrl: options.checkUrl,
      }),
    });
  }
  return stdioTransport(command!, options.args ?? [], options.env ?? {});
}
