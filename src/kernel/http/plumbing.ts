import type { INestApplication } from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CapacityOutcome } from './request-scope';
import type { Settings } from '../settings/settings';
import type { Refusal } from './body';
import type { CorsDelegate } from './cors';
import type { RouteTable } from './route-table';

/** One answered request, as the metrics count it: never a raw URL, a key or a key id. */
export interface AnsweredRequest {
  method: string;
  /** The route template (`/api/v1/auth/api-keys/:id`), a mount point (`/docs/*`) or `unmatched`. */
  route: string;
  status: number;
  seconds: number;
  /** Whether a key had authenticated the request (a 429 of a key, not of the failed-auth limiter). */
  keyed: boolean;
  /** A tool call's 503 without running: the tool was full, or its caller held its fair share. */
  refused?: CapacityOutcome;
  /** An MCP POST's messages (RequestScope.mcpMessages). */
  mcpMessages?: unknown[];
}

/**
 * What the application hands an adapter's plumbing (configureApp builds it from its providers): the
 * adapter file wires each piece in its own framework's way, in the same order on both.
 */
export interface HttpPlumbing {
  settings: Settings;
  /** Request logging: `start` first thing (the access line, when verbose). */
  log: {
    start(req: IncomingMessage, res: ServerResponse): void;
  };
  /** Where the interactive docs are served (their pages get a looser content security policy). */
  docsPath: string;
  /** The application's own check at the front door, after CORS (MCP's allowed browser origins). */
  gate?: (req: IncomingMessage) => Refusal | undefined;
  /** Called once an answer has gone out; must not throw. */
  countAnswer: (answer: AnsweredRequest) => void;
  routes: RouteTable;
  /** Levels a route's body wraps around what the depth limit applies to (MCP: batch, message, params). */
  bodyEnvelopeDepth: (path: string) => number;
  /** The largest body a route reads, in bytes (tool routes have a limit of their own). */
  bodyLimitBytes: (path: string) => number;
  /** CORS per request, when the operator allowed any browser origin. */
  cors?: CorsDelegate;
}

/** The Node request and response under an adapter's objects, for a handler that writes its own answer. */
export interface NodeExchange {
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * One HTTP framework under Nest (src/kernel/http/express.ts, src/kernel/http/fastify.ts): the only files that know
 * which one runs. Everything else talks to Nest's HttpAdapterHost or to HttpExchange.
 */
export interface HttpPlatform {
  readonly name: 'express' | 'fastify';
  /** The Nest adapter, made before the application: Fastify takes its routing options here. */
  createAdapter(settings: Settings): AbstractHttpAdapter;
  /** Installs the plumbing, before `app.init()` registers the routes. */
  configure(app: INestApplication, plumbing: HttpPlumbing): void;
  /** Resolves once the app answers requests injected into its server (supertest, without listen). */
  ready(app: INestApplication): Promise<void>;
  /**
   * Hands the answer to a handler that writes it on the Node response itself (MCP's transport):
   * headers set so far through the adapter are carried over, and the adapter leaves the reply alone.
   */
  takeOver(req: object, res: object): NodeExchange;
  /** Sets a header on the adapter's response object. */
  setHeader(res: object, name: string, value: string | number): void;
  /** The Node request under the adapter's request object. */
  nodeRequest(req: object): IncomingMessage;
  /** The Node response under the adapter's response object (to learn that the client went away). */
  nodeResponse(res: object): ServerResponse;
}

/** The part of a reply a controller sets, the same on both adapters (`@Res({ passthrough: true })`). */
export interface ReplyControl {
  status(code: number): unknown;
  header(name: string, value: string): unknown;
}
