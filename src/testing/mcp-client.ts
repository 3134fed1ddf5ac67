/**
 * The MCP client a test talks to: the official client of the era asked for, over Streamable HTTP.
 * `modern` is `@modelcontextprotocol/client` 2.x negotiating the 2026-07-28 revision (through
 * `server/discover`), `legacy` the same client speaking 2025 (its `initialize`), `v1`
 * `@modelcontextprotocol/sdk` 1.x (2025 only). Both packages are optional peer dependencies of the
 * kit: each is loaded when a client of its era is asked for.
 */
export type McpEra = 'modern' | 'legacy' | 'v1';

export const MCP_ERAS: McpEra[] = ['modern', 'legacy', 'v1'];

/** One face for the clients of both eras. */
export interface McpTestClient {
  era: McpEra;
  /** The revision the connection speaks (`2025` for the 1.x client, which does not say more). */
  version: string | undefined;
  listTools(): Promise<{ tools: { name: string; inputSchema?: unknown }[] }>;
  callTool(params: {
    name: string;
    arguments?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }): Promise<{ content?: unknown; structuredContent?: unknown; isError?: boolean }>;
  close(): Promise<void>;
}

type Client2Module = typeof import('@modelcontextprotocol/client');
type Client1Module = typeof import('@modelcontextprotocol/sdk/client/index.js');
type Http1Module = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');

/** A peer dependency of the kit, loaded on use, or a message that says which to install. */
function peer<T>(name: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(`MCP clients of this era need ${name}: npm install --save-dev ${name}`);
  }
}

/** A client of `era` connected to `url` (the server's `/mcp`), with `key` as its bearer token. */
export async function connectMcp(
  url: URL | string,
  { key, era = 'modern' }: { key?: string; era?: McpEra } = {},
): Promise<McpTestClient> {
  const endpoint = new URL(url);
  const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
  const requestInit = { headers };
  if (era === 'v1') {
    /* eslint-disable @typescript-eslint/no-require-imports -- optional peers, loaded on use */
    const { Client } = peer<Client1Module>(
      '@modelcontextprotocol/sdk',
      () => require('@modelcontextprotocol/sdk/client/index.js') as Client1Module,
    );
    const { StreamableHTTPClientTransport } = peer<Http1Module>(
      '@modelcontextprotocol/sdk',
      () => require('@modelcontextprotocol/sdk/client/streamableHttp.js') as Http1Module,
    );
    const client = new Client({ name: 'tis-testing-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit }));
    return {
      era,
      version: client.getServerVersion() ? '2025' : undefined,
      listTools: () => client.listTools(),
      callTool: (params) => client.callTool(params) as ReturnType<McpTestClient['callTool']>,
      close: () => client.close(),
    };
  }
  const { Client, StreamableHTTPClientTransport } = peer<Client2Module>(
    '@modelcontextprotocol/client',
    () => require('@modelcontextprotocol/client') as Client2Module,
  );
  /* eslint-enable @typescript-eslint/no-require-imports */
  const client = new Client(
    { name: `tis-testing-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
  );
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit }));
  return {
    era,
    version: client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools(),
    callTool: (params) => client.callTool(params),
    close: () => client.close(),
  };
}
