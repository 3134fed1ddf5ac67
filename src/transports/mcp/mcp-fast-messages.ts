import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { IncomingHttpHeaders } from 'node:http';
import { isPlainObject } from '../../kernel/common/plain-object';
import { exactProtocolVersion, McpRevision, ToolCallParams } from './mcp.tools';

/** The MCP revision of the per-request envelope this service serves. */
export const ENVELOPE_REVISION = '2026-07-28';

/** A message the fast path answers: which revision, which method, with what. */
export type FastPathMessage = {
  revision: McpRevision;
  /** The exact revision: 2026-07-28, or the 2025 one of its header (2025-03-26 without one). */
  protocolVersion: string;
  id: string | number;
} & (
  | { method: 'tools/list'; params?: { _meta?: Record<string, unknown> } }
  | { method: 'tools/call'; params: ToolCallParams }
);

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
export function recognize(
  body: unknown,
  headers: IncomingHttpHeaders,
): FastPathMessage | undefined {
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
  const protocolVersion = exactProtocolVersion(meta, version);
  if (method === 'tools/list') {
    return params === undefined || keysWithin(params, ['_meta'])
      ? { revision, protocolVersion, id: id as string | number, method, params }
      : undefined;
  }
  if (!params || !keysWithin(params, ['name', 'arguments', '_meta'])) return;
  if (typeof params.name !== 'string') return;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return;
  if (enveloped && header(headers, 'mcp-name') !== params.name) return;
  return {
    revision,
    protocolVersion,
    id: id as string | number,
    method,
    params: params as unknown as ToolCallParams,
  };
}
