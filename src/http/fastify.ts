import { HttpException, type INestApplication } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import bodyParser from 'body-parser';
import contentType from 'content-type';
import cors from 'cors';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type RequestScope, withinRequest } from '../common/request-scope';
import type { Settings } from '../settings/settings';
import {
  bodyRefusal,
  frontDoorRefusal,
  jsonParserOptions,
  MALFORMED_PATH,
  type Refusal,
  requestIdFor,
} from './body';
import type { HttpPlatform, HttpPlumbing, NodeExchange } from './plumbing';
import type { RouteDefinition } from './route-table';
import { securityHeaders } from './security';

/** What pino-http and the access log read on the Node request: the id and, at the end, the key. */
type NodeRequest = IncomingMessage & RequestScope;

/** Longer than any request line Node accepts (16 KB of headers): parameters as long as Express takes. */
const MAX_PARAM_LENGTH = 16 * 1024;

/**
 * Express's routing, kept on Fastify (CONTRACT, "Fastify"): paths case-insensitive, a trailing slash
 * ignored, long path parameters; request ids from X-Request-Id when well-formed; the proxies to trust.
 */
function createAdapter(settings: Settings): FastifyAdapter {
  return new FastifyAdapter({
    routerOptions: {
      caseSensitive: false,
      ignoreTrailingSlash: true,
      maxParamLength: MAX_PARAM_LENGTH,
    },
    trustProxy: settings.trustProxy,
    genReqId: (req: IncomingMessage) => requestIdFor(req.headers),
    logger: false,
    // No Nest middleware runs here: the plumbing below is Fastify's own hooks.
    skipMiddie: true,
    // A URL the router cannot decode is answered like any refused request; Fastify runs no hook.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      reply.raw.setHeader('X-Request-Id', request.id);
      const plumbing = WIRED.get(request.server);
      if (plumbing) {
        plumbing.log.start(request.raw, reply.raw);
        reply.raw.once('finish', () => count(plumbing, request, reply));
      }
      if (plumbing) securityHeaders(plumbing.docsPath)(request.raw, reply.raw, () => undefined);
      const detail = error.code === 'FST_ERR_BAD_URL' ? MALFORMED_PATH : 'Bad Request';
      refuse(reply, { status: 400, detail });
    },
  });
}

const JSON_UTF8 = 'application/json; charset=utf-8';

/** A media type with `charset=utf-8` among its parameters, formatted as Express formats it. */
function withUtf8(type: string): string {
  const parsed = contentType.parse(type);
  return contentType.format({
    type: parsed.type,
    parameters: { ...parsed.parameters, charset: 'utf-8' },
  });
}

/** The plumbing of each Fastify instance, for what Fastify answers outside its hooks. */
const WIRED = new WeakMap<object, HttpPlumbing>();

/** Counts an answer under its route's template (the route table's, when routing did not match). */
function count(plumbing: HttpPlumbing, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0];
  plumbing.countAnswer({
    method: request.method,
    route: request.routeOptions.url ?? plumbing.routes.templateFor(path) ?? 'unmatched',
    status: reply.statusCode,
    seconds: reply.elapsedTime / 1000,
    keyed: (request as unknown as RequestScope).apiKey !== undefined,
  });
}

function refuse(reply: FastifyReply, refusal: Refusal): void {
  void reply.code(refusal.status).send({ detail: refusal.detail });
}

/**
 * Fastify's plumbing, in Express's order: request id, access log, helmet, CORS and the front door
 * (Host, path, media type) before routing's answer; the JSON body read by body-parser, as on Express,
 * its errors as `{detail}`; the request scope around guards and handlers; metrics once answered.
 * Headers that must survive any way out (request id, helmet, CORS) go on the Node response, which
 * Fastify merges into its own.
 */
function configure(app: INestApplication, plumbing: HttpPlumbing): void {
  const adapter = app.getHttpAdapter() as FastifyAdapter;
  const instance = adapter.getInstance();
  const { settings, routes } = plumbing;
  const registered: RouteDefinition[] = [];
  instance.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    registered.push({ template: route.url, methods });
  });
  routes.readFrom(() => registered);
  WIRED.set(instance, plumbing);

  const secure = securityHeaders(plumbing.docsPath);
  const corsFor = plumbing.cors && cors(plumbing.cors as Parameters<typeof cors>[0]);
  const json = bodyParser.json(
    jsonParserOptions(settings.bodyLimitBytes, plumbing.bodyEnvelopeDepth),
  );

  // Nest's first onRequest slot: before its own hooks and any Nest middleware.
  adapter.setOnRequestHook(
    (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      const raw = request.raw as NodeRequest;
      raw.id = request.id;
      reply.raw.setHeader('X-Request-Id', request.id);
      plumbing.log.start(raw, reply.raw);
      const atTheDoor = (error?: unknown) => {
        if (error) return done(error as Error);
        // A preflight from a listed origin (cors set its headers) ends here, as on Express.
        if (request.method === 'OPTIONS' && reply.raw.hasHeader('access-control-allow-methods')) {
          void reply.code(204).header('Content-Length', '0').send();
          return;
        }
        const refusal = frontDoorRefusal(raw) ?? plumbing.gate?.(raw);
        if (refusal) return refuse(reply, refusal);
        done();
      };
      // Both call back at once: helmet always, cors with this service's synchronous delegate.
      secure(raw, reply.raw, (error?: unknown) => {
        if (error || !corsFor) return atTheDoor(error);
        corsFor(raw, reply.raw, atTheDoor);
      });
    },
  );

  instance.removeAllContentTypeParsers();
  // Every media type reaches here only when it is JSON's (the front door refused the others).
  instance.addContentTypeParser('*', (request, _payload, done) => {
    json(request.raw, undefined as unknown as ServerResponse, (error?: unknown) => {
      if (error === undefined) return done(null, (request.raw as { body?: unknown }).body);
      const refusal = bodyRefusal(error, settings.bodyLimitBytes);
      done(
        refusal ? new HttpException({ detail: refusal.detail }, refusal.status) : (error as Error),
      );
    });
  });

  // Guards, handlers and the exception filter read the request through its scope.
  instance.addHook('preHandler', (request, _reply, done) => {
    plumbing.log.within(request.raw, () => withinRequest(request, done));
  });
  instance.addHook('onSend', (request, reply, payload, done) => {
    // The access line, written on the Node response's finish, names the key.
    (request.raw as NodeRequest).apiKey = (request as unknown as RequestScope).apiKey;
    // Express names the charset of any text it sends, as a parameter of the media type; so does this.
    const type = reply.getHeader('content-type');
    if (typeof payload === 'string' && typeof type === 'string' && type !== JSON_UTF8) {
      void reply.header('content-type', withUtf8(type));
    }
    done(null, payload);
  });
  instance.addHook('onResponse', (request, reply, done) => {
    count(plumbing, request, reply);
    done();
  });
}

/** The reply's headers go onto the Node response, and Fastify leaves the answer to the caller. */
function takeOver(req: object, res: object): NodeExchange {
  const request = req as FastifyRequest;
  const reply = res as FastifyReply;
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  (request.raw as NodeRequest).apiKey = (request as unknown as RequestScope).apiKey;
  reply.hijack();
  return { req: request.raw, res: reply.raw };
}

export const fastifyPlatform: HttpPlatform = {
  name: 'fastify',
  createAdapter,
  configure,
  ready: async (app) => {
    await (app as NestFastifyApplication).getHttpAdapter().getInstance().ready();
  },
  takeOver,
  nodeRequest: (req) => (req as FastifyRequest).raw,
  setHeader: (res, name, value) => {
    // A Nest middleware's error reaches the filter with the Node response.
    if ('raw' in res) void (res as FastifyReply).header(name, value);
    else (res as ServerResponse).setHeader(name, value);
  },
};
