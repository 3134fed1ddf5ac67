import { isPlainObject } from '../../kernel/common/plain-object';

/** At most this many entries in a message's `_meta`: what a client can make every step read is bounded. */
export const MAX_META_ENTRIES = 64;

/** A JSON-RPC error the /mcp POST answers itself, before any message runs. */
export interface MessageRefusal {
  id: string | number | null;
  code: number;
  message: string;
  /** HTTP 400, unless the error is answered in-band (200), as the SDK answers a request's own. */
  status?: 200;
}

/** The messages of a POST: a batch's elements, or the one message. */
export function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

/**
 * A batch holding two requests of the same `id`: their answers could not be told apart, and a
 * client could run a call twice while reading one answer. Refused whole (-32600), nothing runs.
 */
export function duplicateRequestId(messages: unknown[]): MessageRefusal | undefined {
  if (messages.length < 2) return;
  const seen = new Set<unknown>();
  for (const message of messages) {
    if (!isPlainObject(message) || message.id === undefined || !('method' in message)) continue;
    if (seen.has(message.id)) {
      return {
        id: null,
        code: -32600,
        message: `Invalid Request: the batch holds two requests with id ${JSON.stringify(message.id)}`,
      };
    }
    seen.add(message.id);
  }
}

/**
 * A batch holding an `initialize`: the handshake is never part of a batch (MCP 2025-03-26,
 * lifecycle), so the POST is refused whole (-32600) before anything runs or counts. (The SDK's
 * entry would answer a malformed one inside a batch -32603, an internal error.)
 */
export function initializeInBatch(body: unknown): MessageRefusal | undefined {
  if (!Array.isArray(body)) return;
  const found = body.some((message) => isPlainObject(message) && message.method === 'initialize');
  if (!found) return;
  return {
    id: null,
    code: -32600,
    message: 'Invalid Request: initialize cannot be part of a JSON-RPC batch',
  };
}

/**
 * A message whose `params._meta` holds more than MAX_META_ENTRIES entries: refused (-32602) before
 * any of the POST runs. Counted without reading past the limit, however many a client sent.
 */
export function oversizedMeta(messages: unknown[]): MessageRefusal | undefined {
  for (const message of messages) {
    if (!isPlainObject(message) || !isPlainObject(message.params)) continue;
    const meta = message.params._meta;
    if (!isPlainObject(meta) || !holdsMoreThan(meta, MAX_META_ENTRIES)) continue;
    const id = message.id;
    return {
      id: typeof id === 'string' || typeof id === 'number' ? id : null,
      code: -32602,
      message: `Invalid params: _meta holds more than ${MAX_META_ENTRIES} entries`,
    };
  }
}

function holdsMoreThan(object: object, limit: number): boolean {
  let entries = 0;
  for (const key in object) {
    if (Object.hasOwn(object, key) && ++entries > limit) return true;
  }
  return false;
}

/**
 * A POST of one 2025 `initialize` whose params are not what the handshake needs: -32602 in-band,
 * as a malformed tools/call gets from the SDK (whose entry answers this one -32603, an internal
 * error, for what is the client's mistake).
 */
export function malformedInitialize(body: unknown): MessageRefusal | undefined {
  if (!isPlainObject(body) || body.method !== 'initialize') return;
  const id = body.id;
  if (typeof id !== 'string' && typeof id !== 'number') return;
  const params = body.params;
  const wellFormed =
    isPlainObject(params) &&
    typeof params.protocolVersion === 'string' &&
    isPlainObject(params.capabilities) &&
    isPlainObject(params.clientInfo) &&
    typeof params.clientInfo.name === 'string' &&
    typeof params.clientInfo.version === 'string';
  if (wellFormed) return;
  return {
    id,
    code: -32602,
    message: 'Invalid initialize request: params need protocolVersion, capabilities and clientInfo',
    status: 200,
  };
}

/** The body of a refusal: a JSON-RPC error response. */
export function refusalBody(refusal: MessageRefusal): object {
  return {
    jsonrpc: '2.0',
    id: refusal.id,
    error: { code: refusal.code, message: refusal.message },
  };
}
