import { INestApplication, ShutdownSignal } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { Server } from 'node:http';
import { Logger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { setupOpenApi } from './docs/openapi';
import { JSON_INVALID, MAX_BODY_DEPTH, TOO_DEEP } from './validation/validation.pipe';
import { hardenHttpServer } from './http/http-server';
import { jsonDeeperThan } from './http/json-depth';
import { rejectMalformedRequests } from './http/request-checks';
import { RouteTable } from './http/route-table';
import { HTTP_LOGGER } from './logging/logging.module';
import { MCP_PATH } from './mcp/mcp.controller';
import { httpMetricsMiddleware } from './metrics/http-metrics';
import { MetricsService } from './metrics/metrics.service';
import { Settings, SETTINGS } from './settings/settings';
import { ToolRegistry } from './tools/tool.registry';

/** An incoming X-Request-Id is kept when it is this well-formed; otherwise a new one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Media types read as JSON; no Content-Type at all is read as JSON too. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  (req as Request & { id: string }).id = id;
  res.setHeader('X-Request-Id', id);
  next();
}

function hasBody(req: Request): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
  );
}

/** Bodies of any other media type are refused before anything else looks at the request. */
function jsonOnly(req: Request, res: Response, next: NextFunction): void {
  if (hasBody(req) && !isJsonMediaType(req.headers['content-type'])) {
    res
      .status(415)
      .json({ detail: "Unsupported Media Type: send 'Content-Type: application/json'" });
    return;
  }
  next();
}

/** On /mcp the limit applies to a tool call's arguments, inside the batch, message and params levels. */
const MCP_ENVELOPE_DEPTH = 3;
const MCP_ROUTE = new RegExp(`^/${MCP_PATH}/?$`, 'i');

/**
 * Refuses a body nested deeper than MAX_BODY_DEPTH as it is read, before JSON.parse: one pass over
 * the bytes, so that a megabyte of `[` costs a scan and not a parse (body-parser's `verify` hook).
 */
function refuseDeepBodies(req: Request, _res: Response, raw: Buffer): void {
  const limit = MAX_BODY_DEPTH + (MCP_ROUTE.test(req.path) ? MCP_ENVELOPE_DEPTH : 0);
  if (jsonDeeperThan(raw, limit)) {
    throw Object.assign(new Error('JSON body nested too deeply'), {
      status: 400,
      type: 'entity.too.deep',
    });
  }
}

/** Body-parser failures (bad JSON, too large, bad charset or encoding) as `{detail}`, before auth. */
function bodyErrors(limitBytes: number) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    const error = err as { type?: string; status?: number; code?: string };
    const status = typeof error?.status === 'number' ? error.status : undefined;
    // Only the errors of reading the body: http-errors with a client status.
    if (res.headersSent || status === undefined || status < 400 || status >= 500) return next(err);
    switch (error.type) {
      case 'entity.parse.failed':
        res.status(400).json({ detail: [JSON_INVALID] });
        return;
      case 'entity.too.deep':
        res.status(400).json({ detail: [TOO_DEEP] });
        return;
      case 'entity.too.large':
        res
          .status(413)
          .json({ detail: `Request body too large: the limit is ${limitBytes} bytes` });
        return;
      case 'encoding.unsupported':
      case 'charset.unsupported':
        res.status(415).json({ detail: 'Unsupported Media Type: the body must be UTF-8 JSON' });
        return;
      case 'request.aborted':
        res.status(400).json({ detail: 'Request aborted' });
        return;
      default:
        // A body that does not match its Content-Encoding (zlib: "incorrect header check"), ...
        res.status(status).json({
          detail:
            error.code === 'Z_DATA_ERROR' || error.code === 'Z_BUF_ERROR'
              ? 'Malformed request body: it does not match its Content-Encoding'
              : 'Malformed request body',
        });
    }
  };
}

/**
 * Everything an app needs beyond its modules, shared by main.ts and every e2e test so that tests run
 * exactly what production runs.
 */
export function configureApp(app: INestApplication): INestApplication {
  const express = app as NestExpressApplication;
  const settings = app.get<Settings>(SETTINGS);
  app.useLogger(app.get(Logger));
  express.disable('x-powered-by');
  express.set('trust proxy', settings.trustProxy);
  express.set('etag', false);
  app.use(requestId);
  // Logged and counted first, so that requests answered by the checks below are too.
  app.use(app.get(HTTP_LOGGER));
  app.use(
    httpMetricsMiddleware(app.get(MetricsService), app.get(ToolRegistry), app.get(RouteTable)),
  );
  app.use(helmet());
  app.use(rejectMalformedRequests);
  app.use(jsonOnly);
  express.useBodyParser('json', {
    limit: settings.bodyLimitBytes,
    strict: false,
    type: (req: Request) => isJsonMediaType(req.headers['content-type']),
    verify: refuseDeepBodies,
  });
  app.use(bodyErrors(settings.bodyLimitBytes));
  setupOpenApi(app);
  hardenHttpServer(app.getHttpServer() as Server, settings.httpTimeouts);
  // On SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish, run the shutdown
  // hooks (the store closes), then exit 0; process.exit also flushes the asynchronous log stream.
  app.enableShutdownHooks([ShutdownSignal.SIGTERM, ShutdownSignal.SIGINT], {
    useProcessExit: true,
  });
  return app;
}
