import { HttpException, type INestApplication } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import cors, { type CorsOptions } from 'cors';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestScope } from './request-scope';
import type { Settings } from '../settings/settings';
import {
  bodyRefusal,
  frontDoorRefusal,
  isPlainJsonBody,
  jsonParsers,
  MALFORMED_PATH,
  MAX_BODY_DEPTH,
  parseJsonBytes,
  pathOf,
  type Refusal,
  requestIdFor,
  readWhole,
  JSON_UTF8,
  withUtf8,
} from './body';
import type { AnsweredRequest, HttpPlatform, HttpPlumbing, NodeExchange } from './plumbing';
import type { RouteDefinition } from './route-table';
import { securityHeaders } from './security';
import { spans } from '../common/tracing-gate';
import { wireName } from './wire-name';

/** What pino-http and the access log read on the Node request: the id and, at the end, the key. */
type NodeRequest = IncomingMessage & RequestScope;

/** Longer than any request line Node accepts (16 KB of headers): parameters as long as Express takes. */
const MAX_PARAM_LENGTH = 16 * 1024;

/**
 * TRUST_PROXY as Express compiles it. A hop count trusts that many addresses nearest the server;
 * Fastify (since 5.12) trusts no address for a bare number, so it gets Express's function instead.
 */
function trustProxyOf(value: Settings['trustProxy']) {
  return typeof value === 'number' ? (_address: string, hop: number) => hop < value : value;
}

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
    trustProxy: trustProxyOf(settings.trustProxy),
    genReqId: (req: IncomingMessage) => requestIdFor(req.headers),
    logger: false,
    // No Nest middleware runs here: the plumbing below is Fastify's own hooks.
    skipMiddie: true,
    // While closing, a request on an open connection is served, as on Express (Fastify's own 503
    // would not be in the `{detail}` shape); new connections are refused either way.
    return503OnClosing: false,
    // A URL the router cannot decode is answered like any refused request; Fastify runs no hook.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      reply.raw.setHeader('X-Request-Id', request.id);
      const wired = WIRED.get(request.server);
      if (wired) {
        wired.plumbing.log.start(request.raw, reply.raw);
        reply.raw.once('finish', () => count(wired.plumbing, request, reply));
        setAll(reply, wired.secure(request.url));
      }
      const detail = error.code === 'FST_ERR_BAD_URL' ? MALFORMED_PATH : 'Bad Request';
      refuse(reply, { status: 400, detail });
    },
  });
}

/**
 * Headers every answer carries, set on the Node response, as the request id and CORS headers are,
 * not through `reply.header()`: Fastify keeps its own in an object, then copies them onto the Node
 * response when it answers, and past about 16 names that object turns into a hash table (V8's
 * dictionary mode), which makes every further header and the copy dearer (docs/performance.md, "Why the hot path is written as it is").
 */
function setAll(reply: FastifyReply, headers: readonly (readonly [string, string])[]): void {
  for (const [name, value] of headers) reply.raw.setHeader(name, value);
}

/** The plumbing of each Fastify instance and its security headers, for what Fastify answers outside its hooks. */
const WIRED = new WeakMap<
  object,
  { plumbing: HttpPlumbing; secure: (url: string) => readonly (readonly [string, string])[] }
>();

/** Counts an answer under its route's template (the route table's, when routing did not match), and ends its span. */
function count(plumbing: HttpPlumbing, request: FastifyRequest, reply: FastifyReply): void {
  const answer: AnsweredRequest = {
    method: request.method,
    route:
      request.routeOptions.url ?? plumbing.routes.templateFor(pathOf(request.url)) ?? 'unmatched',
    status: reply.statusCode,
    seconds: reply.elapsedTime / 1000,
    keyed: (request as unknown as RequestScope).caller !== undefined,
    refused: (request as unknown as RequestScope).refused,
    mcpMessages: (request as unknown as RequestScope).mcpMessages,
  };
  plumbing.countAnswer(answer);
  (request.raw as NodeRequest).serverSpan?.end(answer);
}

function refuse(reply: FastifyReply, refusal: Refusal): void {
  void reply.code(refusal.status).send({ detail: refusal.detail });
}

/**
 * Fastify's plumbing, in Express's order: request id, access log, helmet, CORS and the front door
 * (Host, path, media type, MCP origin) before routing's answer; the JSON body read under
 * body-parser's rules (by body-parser itself when it is compressed, chunked or not UTF-8), its
 * errors as `{detail}`; the request scope around guards and handlers; metrics once answered. The
 * request id and CORS headers go on the Node response, which Fastify merges into its own.
 */
function configure(app: INestApplication, plumbing: HttpPlumbing): void {
  const adapter = app.getHttpAdapter() as FastifyAdapter;
  const instance = adapter.getInstance();
  const { routes } = plumbing;
  const registered: RouteDefinition[] = [];
  instance.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    registered.push({ template: route.url, methods });
  });
  routes.readFrom(() => registered);
  const secure = securityHeaders(plumbing.docsPath);
  WIRED.set(instance, { plumbing, secure });

  const delegate = plumbing.cors;
  // cors sets its headers and leaves the preflight's answer to the hook below, so that it goes
  // out through Fastify with the rest of the headers.
  const corsFor =
    delegate &&
    cors((req, callback) =>
      delegate(req as IncomingMessage, (error, options) =>
        callback(error, { ...(options as CorsOptions), preflightContinue: true }),
      ),
    );
  // Nest's first onRequest slot: before its own hooks and any Nest middleware.
  adapter.setOnRequestHook(
    (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      const raw = request.raw as NodeRequest;
      raw.id = request.id;
      reply.raw.setHeader('X-Request-Id', request.id);
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
      const enter = () => {
        plumbing.log.start(raw, reply.raw);
        setAll(reply, secure(raw.url ?? '/'));
        // cors calls back at once, with this service's synchronous delegate.
        if (corsFor) corsFor(raw, reply.raw, atTheDoor);
        else atTheDoor();
      };
      const span = (raw.serverSpan = spans.request(raw));
      if (span) span.within(enter);
      else enter();
    },
  );

  readBodies(instance, plumbing);

  instance.addHook('onSend', (request, reply, payload, done) => {
    // The access line, written on the Node response's finish, names the key.
    (request.raw as NodeRequest).caller = (request as unknown as RequestScope).caller;
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

/**
 * The JSON body of a request, read under body-parser's rules: the common one here, any other
 * (compressed, chunked, not UTF-8) by body-parser itself; its errors as `{detail}`.
 */
function readBodies(instance: FastifyInstance, plumbing: HttpPlumbing): void {
  // body-parser for what is not read here (below), one per limit a route has.
  const parserFor = jsonParsers(plumbing.bodyEnvelopeDepth);
  instance.removeAllContentTypeParsers();
  // Every media type reaches here only when it is JSON's (the front door refused the others).
  instance.addContentTypeParser('*', (request, payload, done) => {
    const path = pathOf(request.url);
    const limit = plumbing.bodyLimitBytes(path);
    const fail = (error: unknown) => {
      const refusal = bodyRefusal(error, limit);
      done(
        refusal ? new HttpException({ detail: refusal.detail }, refusal.status) : (error as Error),
      );
    };
    // The common body is read here, as body-parser would read it; any other goes to body-parser.
    if (!isPlainJsonBody(request.headers, limit)) {
      return parserFor(limit)(
        request.raw,
        undefined as unknown as ServerResponse,
        (error?: unknown) =>
          error === undefined ? done(null, (request.raw as { body?: unknown }).body) : fail(error),
      );
    }
    const depth = MAX_BODY_DEPTH + plumbing.bodyEnvelopeDepth(path);
    readWhole(payload, (error, raw) => {
      if (error) return fail(error);
      try {
        done(null, parseJsonBytes(raw, depth));
      } catch (refused) {
        fail(refused);
      }
    });
  });
}

/** Where a Fastify reply keeps the headers set with `reply.header()` (found on first use). */
let replyHeadersKey: symbol | null | undefined;

/**
 * The headers Fastify holds for a reply, those set with `reply.header()`. Every header this
 * service sets goes onto the Node response (setAll, `setHeader` below), so these are few or none;
 * `reply.getHeaders()` builds the Node response's dozen and them into new objects on every MCP
 * POST. Read where Fastify 5 keeps them, its own `fastify.reply.headers` symbol (the one private
 * member read in src/, kept for what it saves: docs/performance.md, "Why the hot path is written
 * as it is"); `getHeaders()` where a release keeps them elsewhere.
 */
function fastifyHeaders(reply: FastifyReply): Record<string, unknown> {
  if (replyHeadersKey === undefined) {
    /* eslint-disable no-restricted-syntax -- kept for what it saves (see above) */
    replyHeadersKey =
      Object.getOwnPropertySymbols(reply).find(
        (key) => key.description === 'fastify.reply.headers',
      ) ?? null;
    /* eslint-enable no-restricted-syntax */
  }
  const own: unknown =
    replyHeadersKey && (reply as unknown as Record<symbol, unknown>)[replyHeadersKey];
  return own !== null && typeof own === 'object'
    ? (own as Record<string, unknown>)
    : reply.getHeaders();
}

/** The reply's headers go onto the Node response, and Fastify leaves the answer to the caller. */
function takeOver(req: object, res: object): NodeExchange {
  const request = req as FastifyRequest;
  const reply = res as FastifyReply;
  const raw = reply.raw;
  const held = fastifyHeaders(reply);
  for (const name in held) {
    const value = held[name] as string | number | readonly string[] | undefined;
    if (value !== undefined && raw.getHeader(name) !== value) raw.setHeader(name, value);
  }
  (request.raw as NodeRequest).caller = (request as unknown as RequestScope).caller;
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
  nodeResponse: (res) => (res as FastifyReply).raw,
  setHeader: (res, name, value) => void (res as FastifyReply).raw.setHeader(wireName(name), value),
};
