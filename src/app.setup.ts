import { INestApplication, ShutdownSignal } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { Request } from 'express';
import helmet from 'helmet';
import type { Server } from 'node:http';
import { Logger } from 'nestjs-pino';
import { setupOpenApi } from './docs/openapi';
import { corsFor } from './http/cors';
import { hardenHttpServer } from './http/http-server';
import {
  bodyErrors,
  isJsonMediaType,
  jsonOnly,
  refuseDeepBodies,
  requestId,
  requestScope,
} from './http/express-body';
import { rejectMalformedRequests } from './http/request-checks';
import { RouteTable } from './http/route-table';
import { HTTP_LOGGER } from './logging/logging.module';
import { MCP_PATH } from './mcp/mcp.controller';
import { httpMetricsMiddleware } from './metrics/http-metrics';
import { MetricsService } from './metrics/metrics.service';
import { Settings, SETTINGS } from './settings/settings';
import { ToolRegistry } from './tools/tool.registry';

const MCP_ROUTE = new RegExp(`^/${MCP_PATH}/?$`, 'i');

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
  // The request is readable below it (audit actor, idempotent answers) without being passed down.
  app.use(requestScope);
  // Logged and counted first, so that requests answered by the checks below are too.
  app.use(app.get(HTTP_LOGGER));
  app.use(
    httpMetricsMiddleware(app.get(MetricsService), app.get(ToolRegistry), app.get(RouteTable)),
  );
  app.use(helmet());
  if (settings.corsOrigins.length || settings.mcpAllowedOrigins.length) {
    app.enableCors(
      corsFor(settings.corsOrigins, {
        matches: (path) => MCP_ROUTE.test(path),
        origins: settings.mcpAllowedOrigins,
      }),
    );
  }
  app.use(rejectMalformedRequests);
  app.use(jsonOnly);
  express.useBodyParser('json', {
    limit: settings.bodyLimitBytes,
    strict: false,
    type: (req: Request) => isJsonMediaType(req.headers['content-type']),
    // On /mcp the limit applies to a tool call's arguments, inside the batch, message and params.
    verify: refuseDeepBodies((path) => (MCP_ROUTE.test(path) ? 3 : 0)),
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
