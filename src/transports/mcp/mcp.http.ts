import { Injectable, Logger } from '@nestjs/common';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { AuthInfo, McpHandlerRequestOptions } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPlainObject } from '../../kernel/common/plain-object';
import { McpServerFactory, McpServerScope, RawArguments } from './mcp.server';

/** What one POST's server needs of its request (McpServerScope), its arguments aside. */
export type McpRequestScope = Omit<McpServerScope, 'rawArguments'>;

/** The arguments of each request of a parsed body, by id, as the client sent them. */
function argumentsIn(body: unknown): RawArguments {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return (id) => {
    const message = messages.find((m) => isPlainObject(m) && m.id === id);
    return isPlainObject(message) && isPlainObject(message.params)
      ? message.params.arguments
      : undefined;
  };
}

/** The request scope travels to the SDK's server factory in AuthInfo's free-form `extra`. */
const SCOPE = 'io.tis/scope';

function scopeOf(auth: AuthInfo | undefined): McpRequestScope & { body: unknown } {
  const scope = auth?.extra?.[SCOPE] as (McpRequestScope & { body: unknown }) | undefined;
  if (!scope) throw new Error('An MCP request reached the SDK without its caller');
  return scope;
}

/** Whether any message of the body asks for progress (`_meta.progressToken`): it is answered as SSE. */
function asksForProgress(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some(
    (message) =>
      isPlainObject(message) &&
      isPlainObject(message.params) &&
      isPlainObject(message.params._meta) &&
      message.params._meta.progressToken !== undefined,
  );
}

/**
 * MCP over Streamable HTTP on the official SDK's serving entry (`@modelcontextprotocol/server` 2.x),
 * built once: the 2026-07-28 revision through `createMcpHandler` (stateless, `server/discover`,
 * the header checks, `resultType`, cache hints, SSE when a handler sends progress first) and the
 * 2025 revisions, told apart by the SDK's own `isLegacyRequest`, through a stateless transport that
 * answers JSON (as this service always has; SSE when a message asks for progress) and never issues
 * a session. The SDK's server factory makes one server per request over the same tools.
 */
@Injectable()
export class McpHttpEntry {
  private readonly logger = new Logger('Mcp');
  private readonly serve: (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ) => Promise<void>;

  constructor(private readonly servers: McpServerFactory) {
    const onerror = (error: Error) => this.logger.warn(`MCP entry: ${error.message}`);
    const enveloped = createMcpHandler(
      ({ authInfo }) => {
        const { body, ...scope } = scopeOf(authInfo);
        return this.servers.create({ ...scope, rawArguments: argumentsIn(body) });
      },
      { legacy: 'reject', onerror },
    );
    const legacy = (request: Request, options: McpHandlerRequestOptions = {}) =>
      this.legacy(request, options);
    const composed = {
      fetch: async (request: Request, options: McpHandlerRequestOptions = {}) =>
        (await isLegacyRequest(request, options.parsedBody))
          ? legacy(request, options)
          : enveloped.fetch(request, options),
    };
    const node = toNodeHandler(composed, { onerror });
    this.serve = (req, res, body) => node(req, res, body);
  }

  /**
   * Answers one POST on `res`: `body` is the JSON the app already parsed (and size- and
   * depth-checked), `scope` who calls.
   */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    scope: McpRequestScope,
  ): Promise<void> {
    (req as IncomingMessage & { auth?: AuthInfo }).auth = {
      token: '',
      clientId: '',
      scopes: [],
      extra: { [SCOPE]: { ...scope, body } },
    };
    return this.serve(req, res, body);
  }

  /** A request of a 2025 revision: a server and a stateless transport of its own, JSON unless progress is asked. */
  private async legacy(request: Request, options: McpHandlerRequestOptions): Promise<Response> {
    const { body: _body, ...scope } = scopeOf(options.authInfo);
    const server = this.servers.create({ ...scope, rawArguments: argumentsIn(options.parsedBody) });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !asksForProgress(options.parsedBody),
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, {
        parsedBody: options.parsedBody,
        authInfo: options.authInfo,
      });
    } finally {
      // An SSE answer is still being written: the transport and server close with its stream.
      if (!asksForProgress(options.parsedBody)) {
        void transport.close().catch(() => undefined);
        void server.close().catch(() => undefined);
      }
    }
  }
}
