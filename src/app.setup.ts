import { INestApplication, ShutdownSignal } from '@nestjs/common';
import type { Server } from 'node:http';
import { Logger } from 'nestjs-pino';
import { setupFrontPage } from './kernel/openapi/front-page';
import { DOCS_PATH, setupOpenApi } from './kernel/openapi/openapi';
import { corsFor } from './kernel/http/cors';
import { hardenHttpServer } from './kernel/http/http-server';
import { platformOf } from './kernel/http/platform';
import { RouteTable } from './kernel/http/route-table';
import { HTTP_LOGGER } from './logging';
import { mcpOriginGate } from './transports/mcp/mcp-origin';
import { MCP_PATH } from './transports/mcp/mcp.controller';
import { MCP_SOURCE_ROUTE } from './transports/mcp/mcp-source.controller';
import { requestCounter, MetricsService } from './metrics';
import { Settings, SETTINGS } from './kernel/settings/settings';
import { TOOLS_PATH, ToolRegistry } from './tools/index';

const MCP_ROOT = new RegExp(`^/${MCP_PATH}/?$`, 'i');
/** Every MCP endpoint: /mcp and a source's own, /mcp/sources/<source>. */
const isMcp = (path: string) => MCP_ROOT.test(path) || MCP_SOURCE_ROUTE.test(path);
/** `POST /api/v1/services/<tool>`, as the router matches it (any case, a trailing slash). */
const TOOL_ROUTE = new RegExp(`^/${TOOLS_PATH}/[^/]+/?$`, 'i');

/**
 * Everything an app needs beyond its modules, shared by main.ts and every e2e test so that tests run
 * exactly what production runs. The adapter's own file (src/kernel/http/express.ts, src/kernel/http/fastify.ts)
 * wires the request plumbing; nothing here knows which adapter runs.
 */
export function configureApp(app: INestApplication): INestApplication {
  const settings = app.get<Settings>(SETTINGS);
  app.useLogger(app.get(Logger));
  const anyBrowser = settings.corsOrigins.length || settings.mcpAllowedOrigins.length;
  platformOf(app).configure(app, {
    settings,
    log: app.get(HTTP_LOGGER),
    gate: mcpOriginGate(settings, isMcp),
    countAnswer: requestCounter(app.get(MetricsService), app.get(ToolRegistry)),
    routes: app.get(RouteTable),
    docsPath: DOCS_PATH,
    // On MCP the depth limit applies to a tool call's arguments, inside the batch, message and params.
    bodyEnvelopeDepth: (path) => (isMcp(path) ? 3 : 0),
    // A tool's input is small: a body that is not costs a parse in proportion to its size
    // (40,000 unknown keys, 429 KB: some 13 ms of JSON.parse alone), refused unread instead.
    bodyLimitBytes: (path) =>
      TOOL_ROUTE.test(path) ? settings.toolBodyLimitBytes : settings.bodyLimitBytes,
    cors: anyBrowser
      ? corsFor(settings.corsOrigins, {
          matches: isMcp,
          origins: settings.mcpAllowedOrigins,
        })
      : undefined,
  });
  setupOpenApi(app);
  setupFrontPage(app);
  hardenHttpServer(
    app.getHttpServer() as Server,
    settings.httpTimeouts,
    settings.httpMaxConnections,
  );
  // On SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish, run the shutdown
  // hooks (the store closes), then exit 0; process.exit also flushes the asynchronous log stream.
  app.enableShutdownHooks([ShutdownSignal.SIGTERM, ShutdownSignal.SIGINT], {
    useProcessExit: true,
  });
  return app;
}

/** Resolves once the app answers requests on its server (Fastify loads its plugins first). */
export function readyToServe(app: INestApplication): Promise<void> {
  return platformOf(app).ready(app);
}
