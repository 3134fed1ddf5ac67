import { ClientRequest, request as httpRequest } from 'node:http';
import { bearer, TestApp, listenOnLoopback } from './app';
import { connectHttp, textOf } from './mcp-clients';

/**
 * The ways a client calls a tool, for the scenarios that differ only by transport: REST, and MCP
 * over HTTP with the official client of either era.
 */
export type ToolTransport = 'rest' | 'mcp-2026' | 'mcp-2025';

export const TOOL_TRANSPORTS: ToolTransport[] = ['rest', 'mcp-2026', 'mcp-2025'];

/**
 * A tool call's answer as its client sees it: the result, or the refusal's text (REST: the
 * `{detail}` with its status; MCP: an `isError` result's text, as the service writes it).
 */
export interface ToolAnswer {
  result?: unknown;
  refused?: string;
  /** REST's status; MCP answers a tool's refusal in a result, so has none. */
  status?: number;
}

/** Calls `tool` with `args` as `key` over `transport`. */
export async function callTool(
  t: TestApp,
  transport: ToolTransport,
  key: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  if (transport === 'rest') {
    const res = await t.http().post(`/api/v1/services/${tool}`).set(bearer(key)).send(args);
    if (res.status < 300) return { status: res.status, result: res.body as unknown };
    return { status: res.status, refused: (res.body as { detail: string }).detail };
  }
  const url = new URL(`http://127.0.0.1:${await listenOnLoopback(t.app)}/mcp`);
  const client = await connectHttp(transport === 'mcp-2026' ? 'modern' : 'legacy', url, key);
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    return result.isError ? { refused: textOf(result) } : { result: result.structuredContent };
  } finally {
    await client.close();
  }
}

/**
 * Starts a tool call by raw HTTP and leaves it running: the request, for the test to go away
 * from (`destroy()`) before its answer. REST, or MCP 2026-07-28 (one request, one answer: going
 * away is closing that request's stream).
 */
export async function openCall(
  t: TestApp,
  transport: 'rest' | 'mcp-2026',
  key: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<ClientRequest> {
  const port = await listenOnLoopback(t.app);
  const rest = transport === 'rest';
  const req = httpRequest({
    port,
    host: '127.0.0.1',
    method: 'POST',
    path: rest ? `/api/v1/services/${tool}` : '/mcp',
    headers: {
      ...bearer(key),
      'content-type': 'application/json',
      ...(rest
        ? {}
        : {
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': tool,
          }),
    },
  });
  req.on('error', () => undefined);
  const body = rest
    ? args
    : {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: tool,
          arguments: args,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      };
  req.end(JSON.stringify(body));
  return req;
}
