import { Inject, Injectable } from '@nestjs/common';
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { ServerContext } from '@modelcontextprotocol/server';
import { CallControl } from '../../invocations';
import { hasScope, sourceScope } from '../../kernel/auth/scopes';
import { ApiError } from '../../kernel/errors/api-error';
import { PASSED_METHODS, type UpstreamExtras } from '../../sources';
import type { Caller } from '../../subjects';
import type { ToolCaller } from '../../invocations';
import { Settings, SETTINGS } from '../../kernel/settings/settings';
import { declaresTasks, McpTasks, TASKS_EXTENSION, tasksRequired } from './mcp.tasks';
import { McpOperations } from './mcp-operations';
import {
  exactProtocolVersion,
  LogFields,
  McpCallIo,
  McpRevision,
  McpTools,
  TOOLS_LIST_TTL_MS,
} from './mcp.tools';

import type { McpCatalog } from './mcp-catalog';

/** A method's params as sent, whatever they hold (the handler checks what it reads). */
const ANY_PARAMS = z.looseObject({});

/** Who calls a tools/call a server is sent: the transport decides it per call. */
export type CallerOfCall = (context: ServerContext) => ToolCaller;

/** The arguments of a request as its client sent them (by JSON-RPC id), where the transport has them. */
export type RawArguments = (id: string | number) => unknown;

/** What a server needs of the transport that serves it (one HTTP request, one stdio connection). */
export interface McpServerScope {
  callerOf: CallerOfCall;
  /** Who calls, for tools/list (what it may call, at its plan's costs) and the tasks methods. */
  who: () => Promise<Caller>;
  /** Where error lines point (the HTTP request's fields); none over stdio. */
  logFields?: LogFields;
  rawArguments?: RawArguments;
  /** Makes a call cancellable by a 2025 `notifications/cancelled` of another POST (HTTP). */
  track?: (requestId: string | number, control: CallControl) => () => void;
  /** `network.transport` of its spans: `tcp` over HTTP, `pipe` over stdio. */
  network: 'tcp' | 'pipe';
  /** The tools it serves, under which names (McpCatalogs: all of them, or one source's). */
  catalog: McpCatalog;
}

/** One handler's work as an MCP operation: its method, request and params (for a tool's name). */
type Operation = <T>(
  method: string,
  context: ServerContext,
  params: { name?: unknown } | undefined,
  work: () => Promise<T>,
) => Promise<T>;

/** What the call's request asks: its revision, and whether its client declared the tasks extension. */
function requestTraits(context: ServerContext): { revision: McpRevision; tasks: boolean } {
  const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
  if (envelope?.[PROTOCOL_VERSION_META_KEY] === undefined)
    return { revision: '2025', tasks: false };
  return {
    revision: '2026-07-28',
    tasks: declaresTasks(envelope[CLIENT_CAPABILITIES_META_KEY]),
  };
}

/** The exact revision a request speaks (exactProtocolVersion), over HTTP or stdio. */
function protocolVersionOf(context: ServerContext, server: Server): string {
  return exactProtocolVersion(
    context.mcpReq.envelope,
    context.http?.req?.headers.get('mcp-protocol-version') ?? undefined,
    // For a 2025 connection, what its initialize agreed: the SDK's note says so.
    server.getNegotiatedProtocolVersion(),
  );
}

/**
 * Builds MCP servers (the SDK's low-level `Server`, on its 2.x entry) whose tools are the
 * registry's, one per HTTP request (stateless, both revisions) or one per stdio connection. What is the
 * same for every request (the tool list, schemas, validators) is built once by McpTools; a server
 * is a few handlers over it: tools/list, tools/call, and the tasks extension's methods.
 */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly tools: McpTools,
    private readonly tasks: McpTasks,
    private readonly operations: McpOperations,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * A server whose tools/calls run as the caller `scope.callerOf` names for each (over HTTP: the
   * request's key for the first, the key authenticated again for the next ones of a batch). The
   * tools/calls it is sent run one after the other, in the order they came: a batch's later calls
   * see what its earlier ones did (a key revoked, a setting changed). Each call's signal aborts
   * when its request's stream closes or its client cancels it; its progress goes to a client that
   * sent a `progressToken`, as `notifications/progress` on the request's stream.
   */
  create(scope: McpServerScope): Server {
    const extras = scope.catalog.extras?.served();
    const server = new Server(
      { name: scope.catalog.serverName, version: this.settings.version },
      {
        capabilities: {
          tools: {},
          ...(extras?.resources ? { resources: {} } : {}),
          ...(extras?.prompts ? { prompts: {} } : {}),
          ...(extras?.completions ? { completions: {} } : {}),
          ...(extras?.logging ? { logging: {} } : {}),
          extensions: { [TASKS_EXTENSION]: {} },
        },
        cacheHints: { 'tools/list': { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private' } },
      },
    );
    const { catalog } = scope;
    const logFields = scope.logFields ?? (() => ({}));
    /** A handler's work as one MCP operation: in its span when tracing is on (McpOperations). */
    const operation: Operation = (method, context, params, work) =>
      this.operations.traced(
        () => ({
          method,
          // The registered tool's name, whatever the endpoint calls it.
          tool:
            typeof params?.name === 'string'
              ? (catalog.tool(params.name)?.name ?? params.name)
              : undefined,
          id: context.mcpReq.id,
          protocolVersion: protocolVersionOf(context, server),
          network: scope.network,
          meta: context.mcpReq._meta,
        }),
        work,
      );
    // Params taken as sent and checked here: the SDK's own check of a method's schema answers a
    // client's mistake -32603, an internal error (a cursor that is not a string, say).
    server.setRequestHandler('tools/list', { params: ANY_PARAMS }, (params, context) =>
      operation('tools/list', context, undefined, async () => {
        if (params.cursor !== undefined && typeof params.cursor !== 'string') {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            'Invalid tools/list request: a cursor is a string',
          );
        }
        return this.tools.list(await scope.who(), catalog);
      }),
    );
    let previous: Promise<unknown> = Promise.resolve();
    server.setRequestHandler('tools/call', (request, context) => {
      const args = scope.rawArguments
        ? scope.rawArguments(context.mcpReq.id)
        : request.params.arguments;
      const call = previous.then(() =>
        operation('tools/call', context, request.params, () => {
          const io = this.ioOf(context, scope);
          const called = this.tools.call(
            scope.callerOf(context),
            request.params,
            logFields,
            args,
            io,
            catalog,
          );
          const { notified } = io;
          const answered = notified
            ? called.then(async (result) => (await notified(), result))
            : called;
          return answered.finally(() => io.detach?.());
        }),
      );
      previous = call.catch(() => undefined);
      return call;
    });
    this.serveTasks(server, scope, operation);
    if (extras) this.serveExtras(server, scope, extras);
    return server;
  }

  /**
   * A source's endpoint: the upstream's resources, prompts and completions its capabilities
   * declared, each request sent on as it came (one page of a list) and its result answered as
   * the upstream gave it. They are reads, never charged; a caller needs what allows every tool of
   * the source (`services:execute` or `services:execute:@<source>`). A source that cannot be
   * reached, or that answers badly, is an internal error saying so. An upstream's logging is
   * declared and `logging/setLevel` answered `{}` without being sent on: the upstream's connection
   * is every caller's, and a stateless endpoint sends no notification outside a call's answer.
   */
  private serveExtras(server: Server, scope: McpServerScope, extras: UpstreamExtras): void {
    const source = scope.catalog.source!;
    const passed = scope.catalog.extras!;
    const family = (method: string) =>
      method.startsWith('resources/')
        ? extras.resources
        : method.startsWith('prompts/')
          ? extras.prompts
          : extras.completions;
    if (extras.logging) server.setRequestHandler('logging/setLevel', () => ({}));
    for (const method of PASSED_METHODS) {
      if (!family(method)) continue;
      // Not an `operation`: McpOperations counts these as the messages the SDK answers itself.
      server.setRequestHandler(method, { params: ANY_PARAMS }, async (params, context) => {
        const { scopes } = await scope.who();
        if (!hasScope(scopes, sourceScope(source))) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidRequest,
            `${method} of source ${source} needs the scope services:execute or ${sourceScope(source)}.`,
          );
        }
        try {
          return await passed.forward(method, params, context.mcpReq.signal);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          throw new ProtocolError(ProtocolErrorCode.InternalError, String(error.detail));
        }
      });
    }
  }

  /** A call's controls: its signal tied to the request's, its progress to the client's token. */
  private ioOf(context: ServerContext, scope: McpServerScope): McpCallIo {
    const control = new CallControl();
    const signal = context.mcpReq.signal;
    const stop = () => control.stop('client-gone');
    signal.addEventListener('abort', stop, { once: true });
    const untrack = scope.track?.(context.mcpReq.id, control);
    const token = context.mcpReq._meta?.progressToken;
    let written: Promise<unknown> = Promise.resolve();
    return {
      control,
      ...requestTraits(context),
      progress:
        token === undefined
          ? undefined
          : (progress, total, message) => {
              const sent = context.mcpReq.notify({
                method: 'notifications/progress',
                params: {
                  progressToken: token,
                  progress,
                  ...(total === null ? {} : { total }),
                  ...(message === null ? {} : { message }),
                },
              });
              written = Promise.all([written, sent.catch(() => undefined)]);
            },
      notified: token === undefined ? undefined : () => written,
      detach: () => {
        signal.removeEventListener('abort', stop);
        untrack?.();
      },
    };
  }

  /**
   * `tasks/get`, `tasks/cancel` and `tasks/update` (the extension's methods), for a client that
   * declared the extension on the request (else -32021); a caller finds only its own tasks.
   */
  private serveTasks(server: Server, scope: McpServerScope, operation: Operation): void {
    const params = { params: z.looseObject({ taskId: z.unknown() }) };
    const handle =
      (
        method: string,
        work: (caller: Caller, taskId: unknown) => Promise<Record<string, unknown>>,
      ) =>
      (given: { taskId?: unknown }, context: ServerContext) =>
        operation(method, context, undefined, async () => {
          if (!requestTraits(context).tasks) throw tasksRequired();
          return work(await scope.who(), given.taskId);
        });
    server.setRequestHandler(
      'tasks/get',
      params,
      handle('tasks/get', (caller, taskId) => this.tasks.get(caller, taskId)),
    );
    server.setRequestHandler(
      'tasks/cancel',
      params,
      handle('tasks/cancel', (caller, taskId) => this.tasks.cancel(caller, taskId)),
    );
    server.setRequestHandler(
      'tasks/update',
      params,
      handle('tasks/update', (caller, taskId) => this.tasks.update(caller, taskId)),
    );
  }
}
