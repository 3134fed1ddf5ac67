import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { isPlainObject } from '../../kernel/common/plain-object';
import { McpRequestFacts, spans } from '../../tracing';
import { mcpMethodLabel } from '../../metrics';
import { ToolRegistry } from '../../tools/index';
import { exactProtocolVersion } from './mcp.tools';

/** The methods the service's own handlers answer (McpServerFactory), each an operation there. */
const HANDLED_METHODS = new Set([
  'tools/list',
  'tools/call',
  'tasks/get',
  'tasks/cancel',
  'tasks/update',
]);

/**
 * The messages of a POST that the SDK's entry answers itself (initialize, ping, server/discover,
 * the notifications, what it refuses): their facts, read from the POST.
 */
export function answeredBySdk(
  messages: unknown[],
  headers: IncomingHttpHeaders,
): McpRequestFacts[] {
  const header = headers['mcp-protocol-version'];
  const facts: McpRequestFacts[] = [];
  for (const message of messages) {
    if (!isPlainObject(message) || typeof message.method !== 'string') continue;
    if (HANDLED_METHODS.has(message.method)) continue;
    const params = isPlainObject(message.params) ? message.params : undefined;
    const asked = message.method === 'initialize' ? params?.protocolVersion : undefined;
    const id = message.id;
    facts.push({
      method: message.method,
      id: typeof id === 'string' || typeof id === 'number' ? id : undefined,
      protocolVersion: exactProtocolVersion(
        params?._meta,
        typeof header === 'string' ? header : undefined,
        typeof asked === 'string' ? asked : undefined,
      ),
      network: 'tcp',
      meta: isPlainObject(params?._meta) ? params._meta : undefined,
    });
  }
  return facts;
}

/**
 * Every JSON-RPC message MCP answers, however it is answered (the fast path, the SDK's entry over
 * HTTP or stdio), in its span after OpenTelemetry's MCP conventions when tracing is on
 * (docs/observability.md, through the seam: off, the work runs as it is and no fact is read). Its time is the metric's, from the POST
 * that carried it (RequestScope.mcpMessages, counted with the HTTP answer).
 */
@Injectable()
export class McpOperations {
  constructor(private readonly registry: ToolRegistry) {}

  /**
   * `work`, the answer to one message, in its span. Its method and tool are named as sent only
   * when they are the protocol's and the registry's: else `_OTHER`, and no tool.
   */
  traced<T>(factsOf: () => McpRequestFacts, work: () => Promise<T>): Promise<T> {
    return spans.mcp(() => this.named(factsOf()), work);
  }

  /**
   * `work`, answering messages that the SDK answers inside it (answeredBySdk): a span each, side
   * by side, each as long as the whole.
   */
  around(facts: () => McpRequestFacts[], work: () => Promise<void>): Promise<void> {
    return spans.mcpEach(() => facts().map((message) => this.named(message)), work);
  }

  /** The facts as the span names them: the method and tool as sent when known, else `_OTHER`. */
  private named(facts: McpRequestFacts): McpRequestFacts {
    const method = mcpMethodLabel(facts.method);
    const known = facts.tool !== undefined && this.registry.get(facts.tool) !== undefined;
    return { ...facts, method, tool: known ? facts.tool : undefined };
  }
}
