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
type Stdio2Module = typeof import('@modelcontextprotocol/client/stdio');
type Client1Module = typeof import('@modelcontextprotocol/sdk/client/index.js');
type Http1Module = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
type Stdio1Module = typeof import('@modelcontextprotocol/sdk/client/stdio.js');

/** A server started as a process and spoken to over its stdin and stdout (`cli mcp`). */
export interface McpStdioServer {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** A peer dependency of the kit, loaded on use, or a message that says which to install. */
function peer<T>(name: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(`MCP clients of this era need ${name}: npm install --save-dev ${name}`);
  }
}

/* eslint-disable @typescript-eslint/no-require-imports -- optional peers, loaded on use */
const SDK = '@modelcontextprotocol/sdk';
const CLIENT = '@modelcontextprotocol/client';

/**
 * A client of `era` connected to `target`: the server's `/mcp` URL (with `key` as its bearer
 * token), or a server process over stdio (its key in its environment, `MCP_API_KEY`).
 */
export async function connectMcp(
  target: URL | string | McpStdioServer,
  { key, era = 'modern' }: { key?: string; era?: McpEra } = {},
): Promise<McpTestClient> {
  const stdio = typeof target === 'object' && !(target instanceof URL) ? target : undefined;
  const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
  const requestInit = { headers };
  if (era === 'v1') {
    const { Client } = peer(SDK, () => require(`${SDK}/client/index.js`) as Client1Module);
    const client = new Client({ name: 'tis-testing-v1', version: '1.0.0' });
    if (stdio) {
      const { StdioClientTransport } = peer(
        SDK,
        () => require(`${SDK}/client/stdio.js`) as Stdio1Module,
      );
      await client.connect(new StdioClientTransport({ ...stdio, stderr: 'pipe' }));
    } else {
      const { StreamableHTTPClientTransport } = peer(
        SDK,
        () => require(`${SDK}/client/streamableHttp.js`) as Http1Module,
      );
      const url = new URL(target);
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
    }
    return {
      era,
      version: client.getServerVersion() ? '2025' : undefined,
      listTools: () => client.listTools(),
      callTool: (params) => client.callTool(params) as ReturnType<McpTestClient['callTool']>,
      close: () => client.close(),
    };
  }
  const { Client, StreamableHTTPClientTransport } = peer(
    CLIENT,
    () => require(CLIENT) as Client2Module,
  );
  const client = new Client(
    { name: `tis-testing-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' } },
  );
  if (stdio) {
    const { StdioClientTransport } = peer(CLIENT, () => require(`${CLIENT}/stdio`) as Stdio2Module);
    await client.connect(new StdioClientTransport({ ...stdio, stderr: 'pipe' }));
  } else {
    const url = new URL(target);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  }
  return {
    era,
    version: client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools(),
    callTool: (params) => client.callTool(params),
    close: () => client.close(),
  };
}
/* eslint-enable @typescript-eslint/no-require-imports */
