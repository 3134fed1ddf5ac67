import { Inject, Injectable } from '@nestjs/common';
import { ProtocolError, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import type { IncomingHttpHeaders } from 'node:http';
import { CallControl, PostRefused } from '../../invocations';
import type { Caller } from '../../subjects';
import type { ToolCaller } from '../../invocations';
import { Settings, SETTINGS } from '../../kernel/settings/settings';
import { MAX_BODY_DEPTH } from '../../kernel/http/body';
import { nestedDeeperThan } from '../../kernel/common/plain-object';
import { McpRequestFacts } from '../../tracing';
import type { McpCatalog } from './mcp-catalog';
import { McpOperations } from './mcp-operations';
import { LogFields, McpTools, TOOLS_LIST_TTL_MS } from './mcp.tools';
import { FastPathMessage, recognize } from './mcp-fast-messages';

/** What the fast path needs of the POST it answers. */
export interface FastPathScope {
  caller: () => ToolCaller;
  /** Who sent the POST: its tools/list shows what it may call. */
  who: Caller;
  logFields: LogFields;
  /** Stops the call when its client goes away before the answer; returns the undo. */
  watchClient: (control: CallControl) => () => void;
  /** Makes a 2025 call cancellable by `notifications/cancelled` (McpCancels); its undo. */
  track: (requestId: string | number, control: CallControl) => () => void;
  /** The endpoint's tools, under its names (McpCatalogs). */
  catalog: McpCatalog;
}

/** An answer the fast path wrote for the SDK: its HTTP status and JSON body. */
export interface FastPathAnswer {
  status: number;
  body: string;
}

/**
 * The fast path in front of the SDK's entry, for the hot messages of both revisions (`tools/call` and
 * `tools/list`): the same tools (McpTools), the same result, written as the SDK writes it, byte
 * for byte (the differential spec, test/mcp/mcp-fast-path.e2e-spec.ts, holds it to that), without a
 * server, a transport, Web Request and Response objects and a zod parse of every message per
 * request. Whatever it does not recognize goes to the SDK unchanged (recognize).
 */
@Injectable()
export class McpFastPath {
  /** `MCP_LEAN_PATH=false` sends every request to the SDK (the differential spec compares both). */
  readonly enabled: boolean;
  private readonly version: string;

  constructor(
    private readonly tools: McpTools,
    private readonly operations: McpOperations,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.enabled = settings.mcpFastPath;
    this.version = settings.version;
  }

  /** The POST's one message, when the fast path answers it; undefined, the SDK is to. */
  take(
    body: unknown,
    headers: IncomingHttpHeaders,
    catalog: McpCatalog,
  ): FastPathMessage | undefined {
    if (!this.enabled) return;
    const message = recognize(body, headers);
    // A 2026-07-28 call of a tool that always runs in the background is refused by the SDK's
    // entry (-32021, the client did not declare tasks): its answer, not the fast path's.
    if (message?.method === 'tools/call' && message.revision === '2026-07-28') {
      if (this.tools.runsInBackground(message.params.name, catalog)) return;
    }
    return message;
  }

  /**
   * Whether the message's call reaches its rate check whatever it carries (a registered
   * tool, arguments within the depth limit), so that its rate may be counted there with its
   * credits, in one step of the store, as a REST call's.
   */
  reachesRateStep(message: FastPathMessage, catalog: McpCatalog): boolean {
    if (message.method !== 'tools/call' || !this.tools.knows(message.params.name, catalog))
      return false;
    return !nestedDeeperThan(message.params.arguments, MAX_BODY_DEPTH);
  }

  /** The answer to the message `take` returned (its work in its span, when tracing is on). */
  async answer(message: FastPathMessage, scope: FastPathScope): Promise<FastPathAnswer> {
    if (message.method === 'tools/list') {
      const list = () => Promise.resolve(this.tools.list(scope.who, scope.catalog));
      return this.result(message, scope.catalog, await this.traced(message, scope.catalog, list), {
        ttlMs: TOOLS_LIST_TTL_MS,
        cacheScope: 'private',
      });
    }
    const revision = message.revision;
    // Watched only once it turns out not to end at once: the client closing the POST stops it;
    // a 2025 client may cancel it with notifications/cancelled (2026-07-28 closes the stream).
    const watch = (control: CallControl) => {
      const unwatch = scope.watchClient(control);
      const untrack = revision === '2026-07-28' ? undefined : scope.track(message.id, control);
      return () => {
        unwatch();
        untrack?.();
      };
    };
    try {
      const io = { control: new CallControl(), revision, tasks: false, watch };
      const { catalog } = scope;
      const call = () =>
        this.tools.call(scope.caller(), message.params, scope.logFields, undefined, io, catalog);
      return this.result(message, catalog, await this.traced(message, catalog, call));
    } catch (error) {
      // A call that counts its own rate, refused by it: the POST's 429, as a prepaid POST's.
      if (error instanceof PostRefused) throw error.refusal;
      return this.error(message.id, error);
    }
  }

  /** The message's work in its span (McpOperations). */
  private traced<T>(
    message: FastPathMessage,
    catalog: McpCatalog,
    work: () => Promise<T>,
  ): Promise<T> {
    const facts = (): McpRequestFacts => ({
      method: message.method,
      // The registered tool's name, whatever the endpoint calls it.
      tool:
        message.method === 'tools/call'
          ? (catalog.tool(message.params.name)?.name ?? message.params.name)
          : undefined,
      id: message.id,
      protocolVersion: message.protocolVersion,
      network: 'tcp',
      meta: message.params?._meta,
    });
    return this.operations.traced(facts, work);
  }

  /**
   * A result as the SDK's entry writes it: on 2026-07-28's, `resultType`, then a list's cache
   * hints, then `serverInfo`, after the handler's own fields.
   */
  private result(
    message: FastPathMessage,
    catalog: McpCatalog,
    fields: object & { _meta?: object },
    cache: object = {},
  ): FastPathAnswer {
    const result =
      message.revision === '2026-07-28'
        ? {
            ...fields,
            resultType: 'complete',
            ...cache,
            _meta: {
              ...fields._meta,
              [SERVER_INFO_META_KEY]: { name: catalog.serverName, version: this.version },
            },
          }
        : fields;
    return { status: 200, body: JSON.stringify({ result, jsonrpc: '2.0', id: message.id }) };
  }

  /** An error of the call, in-band, as the SDK's dispatch writes it. */
  private error(id: string | number, error: unknown): FastPathAnswer {
    const detail =
      error instanceof ProtocolError
        ? {
            code: error.code,
            message: error.message,
            ...(error.data !== undefined ? { data: error.data } : {}),
          }
        : { code: -32603, message: error instanceof Error ? error.message : String(error) };
    return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id, error: detail }) };
  }
}
