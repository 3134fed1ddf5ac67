import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { ApiRequest } from '../auth/authenticated-key';
import type { RouteTable } from '../http/route-table';
import { TOOLS_PATH } from '../tools/tool.decorator';
import type { ToolRegistry } from '../tools/tool.registry';
import type { MetricsService } from './metrics.service';

const TOOL_ROUTE = `/${TOOLS_PATH}/`;

/**
 * The route a request is counted under: the template of the route that matched it, never the raw
 * URL, so that labels stay few whatever clients send. Requests answered before routing (415, 413,
 * malformed JSON) count under the template their path has in the route table; static files under
 * their mount point; anything else `unmatched`.
 */
export function routeLabel(req: Request, routes: RouteTable): string {
  const route = (req as { route?: { path?: unknown } }).route;
  // Wildcard routes are middleware mounted for every path (nestjs-pino's binding), not endpoints.
  if (typeof route?.path === 'string' && !route.path.includes('*')) return route.path;
  const template = routes.templateFor(req.path);
  if (template) return template;
  if (req.baseUrl) return `${req.baseUrl}/*`;
  return 'unmatched';
}

/**
 * Express middleware, installed before everything else (configureApp), so that every answer is
 * counted: those of guards (401, 403, 429), of the body checks (400, 413, 415), and of the tools.
 * Counting runs after the answer is sent: whatever goes wrong there is logged, never thrown.
 */
export function httpMetricsMiddleware(
  metrics: MetricsService,
  tools: ToolRegistry,
  routes: RouteTable,
) {
  const logger = new Logger('Metrics');
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      try {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const route = routeLabel(req, routes);
        const status = res.statusCode;
        metrics.observeRequest(req.method, route, status, seconds);
        if (status === 429) metrics.observeRateLimited((req as ApiRequest).apiKey ? 'key' : 'auth');
        const tool =
          req.method === 'POST' && route.startsWith(TOOL_ROUTE)
            ? route.slice(TOOL_ROUTE.length)
            : undefined;
        if (tool !== undefined && tools.get(tool)) metrics.observeToolCall(tool, status);
      } catch (error) {
        logger.error({ err: error }, 'Could not count a request');
      }
    });
    next();
  };
}
