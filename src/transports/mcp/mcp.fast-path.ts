import { Inject, Injectable } from '@nestjs/common';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { IncomingHttpHeaders } from 'node:http';
import { CallControl, PostRefused } from '../../invocations';
import type { Caller } from '../../subjects';
import type { ToolCaller } from '../../invocations';
import { Settings, SETTINGS } from '../../kernel/settings/settings';
import { MAX_BODY_DEPTH } from '../../kernel/http/body';
import { isPlainObject, nestedDeeperThan } from '../../kernel/common/plain-object';
import { SERVER_NAME } from './mcp.server';
import { LogFields, McpRevision, McpTools, TOOLS_LIST_TTL_MS, ToolCallParams } from './mcp.tools';

/** The MCP revision of the per-request envelope this service serves. */
export const ENVELOPE_REVISION = '2026-07-28';

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
}

/** An answer the fast path wrote for the SDK: its HTTP status and JSON body. */
export interface FastPathAnswer {
  status: number;
  body: string;
}

/** A message the fast path answers: which revision, which method, with what. */
export type FastPathMessage =
  | { revision: McpRevision; id: string | number; method: 'tools/list' }
  | { revision: McpRevision; id: string | number; method: 'tools/call'; params: ToolCallParams };

const RESERVED_META = /^io\.modelcontextprotocol\//;
const LEGACY_VERSIONS = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);

const keysWithin = (value: Record<string, unknown>, allowed: readonly string[]) =>
  Object.keys(value).every((key) => allowed.includes(key));

/** `application/json`, as the SDK's transports want it (parameters such as a charset allowed). */
function isJson(contentType: string | undefined): boolean {
  return /^application\/json\s*(;|$)/i.test(contentType ?? '');
}

/** What a 2025 transport needs of `Accept`: both JSON and an event stream. */
function acceptsBoth(accept: string | undefined): boolean {
  return !!accept && accept.includes('application/json') && accept.includes('text/event-stream');
}

/**
 * The client's capabilities, where the fast path can tell the SDK would take them as they are:
 * roots and extensions only, each of the simple shape the schema states; the tasks extension (a
 * call that may become a task) is the SDK's path's.
 */
function plainCapabilities(value: unknown): boolean {
  if (!isPlainObject(value) || !keysWithin(value, ['roots', 'extensions'])) return false;
  const { roots, extensions } = value;
  if (roots !== undefined) {
    if (!isPlainObject(roots) || !keysWithin(roots, ['listChanged'])) return false;
    if (roots.listChanged !== undefined && typeof roots.listChanged !== 'boolean') return false;
  }
  if (extensions !== undefined) {
    if (!isPlainObject(extensions)) return false;
    if (!Object.values(extensions).every(isPlainObject)) return false;
    if (Object.hasOwn(extensions, 'io.modelcontextprotocol/tasks')) return false;
  }
  return true;
}

function plainClientInfo(value: unknown): boolean {
  if (value === undefined) return true;
  return (
    isPlainObject(value) &&
    keysWithin(value, ['name', 'version', 'title']) &&
    typeof value.name === 'string' &&
    typeof value.version === 'string' &&
    (value.title === undefined || typeof value.title === 'string')
  );
}

/**
 * The request's `_meta` as the fast path takes it: none, or plain, with no progress token (a
 * request that asks for progress is answered as SSE, by the SDK) and, when `enveloped`, the 2026-07-28
 * envelope exactly as the SDK would accept it, and no other reserved key (a log level, ...).
 */
function plainMeta(meta: unknown, enveloped: boolean): boolean {
  if (meta === undefined) return !enveloped;
  if (!isPlainObject(meta) || meta.progressToken !== undefined) return false;
  for (const key of Object.keys(meta)) {
    if (!RESERVED_META.test(key)) continue;
    if (!enveloped) return false;
    if (
      ![PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY].includes(key)
    ) {
      return false;
    }
  }
  if (!enveloped) return true;
  return (
    meta[PROTOCOL_VERSION_META_KEY] === ENVELOPE_REVISION &&
    plainCapabilities(meta[CLIENT_CAPABILITIES_META_KEY]) &&
    plainClientInfo(meta[CLIENT_INFO_META_KEY])
  );
}

/** The single header of that name, as sent (two of them, or none: undefined). */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A POST the fast path answers: one JSON-RPC request, `tools/call` or `tools/list`, whose every
 * part is as the SDK's entry would take it without a word of its own: its revision told as the SDK
 * tells it (the envelope in `_meta`, else 2025), the 2026-07-28 headers equal to the body, the
 * 2025 transport's media types. Anything else is undefined: the SDK answers it.
 */
function recognize(body: unknown, headers: IncomingHttpHeaders): FastPathMessage | undefined {
  if (!isPlainObject(body) || body.jsonrpc !== '2.0') return;
  const { id, method } = body;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return;
  if (method !== 'tools/call' && method !== 'tools/list') return;
  if (!isJson(header(headers, 'content-type'))) return;
  const params = body.params;
  if (params !== undefined && !isPlainObject(params)) return;
  const meta = params?._meta;
  const enveloped = isPlainObject(meta) && meta[PROTOCOL_VERSION_META_KEY] !== undefined;
  if (!plainMeta(meta, enveloped)) return;
  const version = header(headers, 'mcp-protocol-version');
  if (enveloped) {
    if (version !== ENVELOPE_REVISION || header(headers, 'mcp-method') !== method) return;
  } else {
    if (headers['mcp-protocol-version'] !== undefined && !LEGACY_VERSIONS.has(version ?? '')) {
      return;
    }
    if (!acceptsBoth(header(headers, 'accept'))) return;
  }
  const revision: McpRevision = enveloped ? '2026-07-28' : '2025';
  if (method === 'tools/list') {
    return params === undefined || keysWithin(params, ['_meta'])
      ? { revision, id: id as string | number, method }
      : undefined;
  }
  if (!params || !keysWithin(params, ['name', 'arguments', '_meta'])) return;
  if (typeof params.name !== 'string') return;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return;
  if (enveloped && header(headers, 'mcp-name') !== params.name) return;
  return {
    revision,
    id: id as string | number,
    method,
    params: params as unknown as ToolCallParams,
  };
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
  private readonly serverInfo: { name: string; version: string };

  constructor(
    private readonly tools: McpTools,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.enabled = settings.mcpFastPath;
    this.serverInfo = { name: SERVER_NAME, version: settings.version };
  }

  /** The POST's one message, when the fast path answers it; undefined, the SDK is to. */
  take(body: unknown, headers: IncomingHttpHeaders): FastPathMessage | undefined {
    if (!this.enabled) return;
    const message = recognize(body, headers);
    // A 2026-07-28 call of a tool that always runs in the background is refused by the SDK's
    // entry (-32021, the client did not declare tasks): its answer, not the fast path's.
    if (message?.method === 'tools/call' && message.revision === '2026-07-28') {
      if (this.tools.runsInBackground(message.params.name)) return;
    }
    return message;
  }

  /**
   * Whether the message's call reaches its rate check whatever it carries (a registered
   * tool, arguments within the depth limit), so that its rate may be counted there with its
   * credits, in one step of the store, as a REST call's.
   */
  reachesRateStep(message: FastPathMessage): boolean {
    if (message.method !== 'tools/call' || !this.tools.knows(message.params.name)) return false;
    return !nestedDeeperThan(message.params.arguments, MAX_BODY_DEPTH);
  }

  /** The answer to the message `take` returned. */
  async answer(message: FastPathMessage, scope: FastPathScope): Promise<FastPathAnswer> {
    if (message.method === 'tools/list') {
      return this.result(message, this.tools.list(scope.who), {
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
      const result = await this.tools.call(
        scope.caller(),
        message.params,
        scope.logFields,
        undefined,
        io,
      );
      return this.result(message, result);
    } catch (error) {
      // A call that counts its own rate, refused by it: the POST's 429, as a prepaid POST's.
      if (error instanceof PostRefused) throw error.refusal;
      return this.error(message.id, error);
    }
  }

  /**
   * A result as the SDK's entry writes it: on 2026-07-28's, `resultType`, then a list's cache
   * hints, then `serverInfo`, after the handler's own fields.
   */
  private result(
    message: FastPathMessage,
    fields: object & { _meta?: object },
    cache: object = {},
  ): FastPathAnswer {
    const result =
      message.revision === '2026-07-28'
        ? {
            ...fields,
            resultType: 'complete',
            ...cache,
            _meta: { ...fields._meta, [SERVER_INFO_META_KEY]: this.serverInfo },
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
