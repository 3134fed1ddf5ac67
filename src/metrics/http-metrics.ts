import { Logger } from '@nestjs/common';
import type { AnsweredRequest } from '../kernel/http/plumbing';
import { TOOLS_PATH } from '../tools/index';
import type { ToolRegistry } from '../tools/index';
import type { MetricsService } from './metrics.service';
import { isPlainObject } from '../kernel/common/plain-object';
import { mcpMethodLabel } from './mcp-methods';

const TOOL_ROUTE = `/${TOOLS_PATH}/`;

/**
 * Counts every answer, whoever gave it: guards (401, 403, 429), the body checks (400, 413, 415) and
 * the tools. The adapter calls it once the answer is sent, with the route's template as the label
 * (never the raw URL); whatever goes wrong here is logged, never thrown.
 */
export function requestCounter(
  metrics: MetricsService,
  tools: ToolRegistry,
): (answer: AnsweredRequest) => void {
  const logger = new Logger('Metrics');
  return ({ method, route, status, seconds, keyed, refused, mcpMessages }) => {
    try {
      metrics.observeRequest(method, route, status, seconds);
      // Each message of an MCP POST, as long as the POST: exact for the usual one-message POST.
      if (mcpMessages) {
        for (const message of mcpMessages) {
          const name = isPlainObject(message) ? message.method : undefined;
          metrics.observeMcpOperation(mcpMethodLabel(name), seconds);
        }
      }
      if (status === 429) metrics.observeRateLimited(keyed ? 'key' : 'auth');
      const tool =
        method === 'POST' && route.startsWith(TOOL_ROUTE)
          ? route.slice(TOOL_ROUTE.length)
          : undefined;
      if (tool !== undefined && tools.get(tool))
        metrics.observeToolCall(tool, status, seconds, refused);
    } catch (error) {
      logger.error({ err: error }, 'Could not count a request');
    }
  };
}
