import { Inject, Injectable } from '@nestjs/common';
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { ToolCaller } from '../invocation/tool.invoker';
import { Settings, SETTINGS } from '../settings/settings';
import { LogFields, McpTools, TOOLS_LIST_TTL_MS } from './mcp.tools';

/** The name MCP clients see (serverInfo). */
export const SERVER_NAME = 'tool-invocation-service';

/** A method's params as sent, whatever they hold (the handler checks what it reads). */
const ANY_PARAMS = z.looseObject({});

/** Who calls a tools/call a server is sent: the transport decides it per call. */
export type CallerOfCall = (context: ServerContext) => ToolCaller;

/** The arguments of a request as its client sent them (by JSON-RPC id), where the transport has them. */
export type RawArguments = (id: string | number) => unknown;

/**
 * Builds MCP servers (the SDK's low-level `Server`, on its 2.x entry) whose tools are the
 * registry's, one per HTTP request (stateless, both eras) or one per stdio connection. What is the
 * same for every request (the tool list, schemas, validators) is built once by McpTools; a server
 * is two handlers over it.
 */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly tools: McpTools,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * A server whose tools/calls run as the caller `callerOf` names for each (over HTTP: the
   * request's key for the first, the key authenticated again for the next ones of a batch). The
   * tools/calls it is sent run one after the other, in the order they came: a batch's later calls
   * see what its earlier ones did (a key revoked, a setting changed). `logFields` tie its error
   * lines to the HTTP request it serves, as REST's are; none over stdio.
   */
  create(
    callerOf: CallerOfCall,
    logFields: LogFields = () => ({}),
    rawArguments?: RawArguments,
  ): Server {
    const server = new Server(
      { name: SERVER_NAME, version: this.settings.version },
      {
        capabilities: { tools: {} },
        cacheHints: { 'tools/list': { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private' } },
      },
    );
    // Params taken as sent and checked here: the SDK's own check of a method's schema answers a
    // client's mistake -32603, an internal error (a cursor that is not a string, say).
    server.setRequestHandler('tools/list', { params: ANY_PARAMS }, (params) => {
      if (params.cursor !== undefined && typeof params.cursor !== 'string') {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'Invalid tools/list request: a cursor is a string',
        );
      }
      return this.tools.list();
    });
    let previous: Promise<unknown> = Promise.resolve();
    server.setRequestHandler('tools/call', (request, context) => {
      const args = rawArguments ? rawArguments(context.mcpReq.id) : request.params.arguments;
      const call = previous.then(() =>
        this.tools.call(callerOf(context), request.params, logFields, args),
      );
      previous = call.catch(() => undefined);
      return call;
    });
    return server;
  }
}
