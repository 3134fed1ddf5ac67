import type { INestApplication } from '@nestjs/common';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestScope } from './request-scope';
import { bodyRefusal, frontDoorRefusal, jsonParsers, pathOf, requestIdFor } from './body';
import type { AnsweredRequest, HttpPlatform, HttpPlumbing } from './plumbing';
import type { RouteDefinition, RouteTable } from './route-table';
import { securityHeaders } from './security';
import { spans } from '../common/tracing-gate';

/** The part of Express 5's router the route table reads: each route's path and methods. */
interface RouterLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

function* expressRoutes(app: NestExpressApplication): Iterable<RouteDefinition> {
  const router = (app.getHttpAdapter().getInstance() as { router?: { stack: RouterLayer[] } })
    .router;
  for (const layer of router?.stack ?? []) {
    const route = layer.route;
    if (!route || typeof route.path !== 'string') continue;
    const methods = Object.entries(route.methods)
      .filter(([method, on]) => on && method !== '_all')
      .map(([method]) => method.toUpperCase());
    yield { template: route.path, methods };
  }
}

/**
 * The route a request is counted under: the template of the route that matched it, never the raw
 * URL. Requests answered before routing count under the template their path has in the route
 * table; static files under their mount point; anything else `unmatched`.
 */
function routeLabel(req: Request, routes: RouteTable): string {
  const route = (req as { route?: { path?: unknown } }).route;
  // Wildcard routes are mounts for every path below them, not endpoints.
  if (typeof route?.path === 'string' && !route.path.includes('*')) return route.path;
  return routes.templateFor(req.path) ?? (req.baseUrl ? `${req.baseUrl}/*` : 'unmatched');
}

/**
 * Express's plumbing, in order: request id, access log, metrics, helmet, CORS, the front door (Host,
 * path, media type, MCP origin), the JSON body and its errors, each refusal in the `{detail}` shape,
 * then the request scope.
 */
function configure(app: INestApplication, plumbing: HttpPlumbing): void {
  const express = app as NestExpressApplication;
  const { settings, routes } = plumbing;
  express.disable('x-powered-by');
  express.set('trust proxy', settings.trustProxy);
  express.set('etag', false);
  routes.readFrom(() => expressRoutes(express));
  express.use((req: Request, res: Response, next: NextFunction) => {
    const id = requestIdFor(req.headers);
    (req as Request & { id: string }).id = id;
    res.setHeader('X-Request-Id', id);
    // Logged and counted first, so that requests answered by the checks below are too.
    const started = process.hrtime.bigint();
    const span = spans.request(req);
    res.once('finish', () => {
      const answer: AnsweredRequest = {
        method: req.method,
        route: routeLabel(req, routes),
        status: res.statusCode,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
        keyed: (req as RequestScope).caller !== undefined,
        refused: (req as RequestScope).refused,
        mcpMessages: (req as RequestScope).mcpMessages,
      };
      plumbing.countAnswer(answer);
      span?.end(answer);
    });
    const enter = () => {
      plumbing.log.start(req, res);
      next();
    };
    if (span) span.within(enter);
    else enter();
  });
  const secure = securityHeaders(plumbing.docsPath);
  express.use((req: Request, res: Response, next: NextFunction) => {
    for (const [name, value] of secure(req.url)) res.setHeader(name, value);
    next();
  });
  if (plumbing.cors) express.enableCors(plumbing.cors);
  express.use((req: Request, res: Response, next: NextFunction) => {
    const refusal = frontDoorRefusal(req) ?? plumbing.gate?.(req);
    if (!refusal) return next();
    res.status(refusal.status).json({ detail: refusal.detail });
  });
  // The app is created with `bodyParser: false`: this is its one parser, with the route's limit.
  const parserFor = jsonParsers(plumbing.bodyEnvelopeDepth);
  const limitOf = (req: Request) => plumbing.bodyLimitBytes(pathOf(req.url));
  express.use((req: Request, res: Response, next: NextFunction) =>
    parserFor(limitOf(req))(req, res, next),
  );
  express.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    const refusal = res.headersSent ? undefined : bodyRefusal(err, limitOf(req));
    if (!refusal) return next(err);
    res.status(refusal.status).json({ detail: refusal.detail });
  });
}

export const expressPlatform: HttpPlatform = {
  name: 'express',
  createAdapter: () => new ExpressAdapter(),
  configure,
  ready: () => Promise.resolve(),
  // Express's request and response are Node's own.
  takeOver: (req, res) => ({ req, res }) as ReturnType<HttpPlatform['takeOver']>,
  nodeRequest: (req) => req as IncomingMessage,
  nodeResponse: (res) => res as ServerResponse,
  setHeader: (res, name, value) => (res as ServerResponse).setHeader(name, value),
};
