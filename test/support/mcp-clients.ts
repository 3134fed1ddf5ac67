import { Client as Client2 } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransport1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectMcp } from '../../src/testing';

/**
 * The official MCP clients of both eras, one face for the tests: `@modelcontextprotocol/client`
 * 2.x negotiating 2026-07-28 (`modern`, through `server/discover`) or speaking 2025 (`legacy`,
 * its `initialize`), and `@modelcontextprotocol/sdk` 1.x (`v1`, 2025 only).
 */
export type ClientKind = 'modern' | 'legacy' | 'v1';

export const CLIENT_KINDS: ClientKind[] = ['modern', 'legacy', 'v1'];

export interface AnyClient {
  kind: ClientKind;
  /** The revision the connection speaks. */
  version: string | undefined;
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: {
    name: string;
    arguments?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }): Promise<{
    content?: unknown;
    structuredContent?: unknown;
    isError?: boolean;
  }>;
  close(): Promise<void>;
}

function wrap2(kind: ClientKind, client: Client2): AnyClient {
  return {
    kind,
    version: client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools(),
    callTool: (params) => client.callTool(params),
    close: () => client.close(),
  };
}

function wrap1(client: Client1): AnyClient {
  return {
    kind: 'v1',
    version: client.getServerVersion() ? '2025' : undefined,
    listTools: () => client.listTools(),
    callTool: (params) => client.callTool(params) as ReturnType<AnyClient['callTool']>,
    close: () => client.close(),
  };
}

function client2(kind: 'modern' | 'legacy'): Client2 {
  return new Client2(
    { name: `e2e-${kind}`, version: '1.0.0' },
    { versionNegotiation: { mode: kind === 'modern' ? 'auto' : 'legacy' } },
  );
}

/** A client of `kind` over Streamable HTTP, the key in its headers: the kit's (src/testing/). */
export async function connectHttp(kind: ClientKind, url: URL, key?: string): Promise<AnyClient> {
  return { kind, ...(await connectMcp(url, { key, era: kind })) };
}

/** A client of `kind` over stdio, starting `command args` with `env`. */
export async function connectStdio(
  kind: ClientKind,
  server: { command: string; args: string[]; env: Record<string, string>; cwd: string },
): Promise<AnyClient> {
  if (kind === 'v1') {
    const client = new Client1({ name: 'e2e-v1', version: '1.0.0' });
    await client.connect(new StdioClientTransport1({ ...server, stderr: 'pipe' }));
    return wrap1(client);
  }
  const client = client2(kind);
  await client.connect(new StdioClientTransport({ ...server, stderr: 'pipe' }));
  return wrap2(kind, client);
}

/** The first text content of a tool result. */
export function textOf(result: unknown): string {
  const [first] = ((result as { content?: unknown }).content ?? []) as { text: string }[];
  return first?.text;
}
