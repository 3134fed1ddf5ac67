import { connectMcp, type McpStdioServer, type McpTestClient } from '../../src/testing';

/**
 * The official MCP clients of both eras, one face for the tests: `@modelcontextprotocol/client`
 * 2.x negotiating 2026-07-28 (`modern`, through `server/discover`) or speaking 2025 (`legacy`,
 * its `initialize`), and `@modelcontextprotocol/sdk` 1.x (`v1`, 2025 only).
 */
export type ClientKind = 'modern' | 'legacy' | 'v1';

export const CLIENT_KINDS: ClientKind[] = ['modern', 'legacy', 'v1'];

/** The kit's client (src/testing/), with the kind it was made as. */
export type AnyClient = McpTestClient & { kind: ClientKind };

/** A client of `kind` over Streamable HTTP, the key in its headers: the kit's (src/testing/). */
export async function connectHttp(kind: ClientKind, url: URL, key?: string): Promise<AnyClient> {
  return { kind, ...(await connectMcp(url, { key, era: kind })) };
}

/** A client of `kind` over stdio, starting `command args` with `env`: the kit's too. */
export async function connectStdio(kind: ClientKind, server: McpStdioServer): Promise<AnyClient> {
  return { kind, ...(await connectMcp(server, { era: kind })) };
}

/** The first text content of a tool result. */
export function textOf(result: unknown): string {
  const [first] = ((result as { content?: unknown }).content ?? []) as { text: string }[];
  return first?.text;
}
