import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { ValidationIssue } from '../errors/validation-issue';
import { jsonDeeperThan } from './json-depth';
import bodyParser from 'body-parser';
import contentType from 'content-type';
import type { Readable } from 'node:stream';

/**
 * The rules of a request's front door, the same on every adapter: request ids, media types, what a
 * malformed request is told, and how the JSON body is read (body-parser, on either adapter, so that
 * encodings, charsets, limits and their errors answer byte for byte alike).
 */

export const JSON_INVALID: ValidationIssue = {
  loc: ['body'],
  msg: 'JSON decode error',
  type: 'json_invalid',
};

/** Deeper bodies are refused while they are read, before any parser or recursive walk meets them. */
export const MAX_BODY_DEPTH = 32;

export const TOO_DEEP: ValidationIssue = {
  loc: ['body'],
  msg: `Input is nested too deeply (more than ${MAX_BODY_DEPTH} levels)`,
  type: 'value_error',
};

export const MALFORMED_PATH = 'Malformed percent-encoding in the request path';
export const MISSING_HOST = 'Bad Request: HTTP/1.1 requires a Host header';
export const NOT_JSON = "Unsupported Media Type: send 'Content-Type: application/json'";

/** A request refused at the front door: its status and `detail`. */
export interface Refusal {
  status: number;
  detail: unknown;
}

/** An incoming X-Request-Id is kept when it is this well-formed; otherwise a new one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(headers: IncomingHttpHeaders): string {
  const incoming = headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** Media types read as JSON; no Content-Type at all is read as JSON too. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Whether every `%` of a path starts an escape that decodes to UTF-8; a URIError otherwise. */
export function wellFormedPath(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * What no route should see, refused before routing: an HTTP/1.1 request without `Host` (Node would
 * answer it itself, with an empty body), a path with a malformed percent-encoding (no route,
 * parameter decoder or label lookup ever meets one), and a body of another media type than JSON.
 */
export function frontDoorRefusal(req: IncomingMessage): Refusal | undefined {
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    return { status: 400, detail: MISSING_HOST };
  }
  if (!wellFormedPath(pathOf(req.url))) {
    return { status: 400, detail: MALFORMED_PATH };
  }
  if (hasBody(req.headers) && !isJsonMediaType(req.headers['content-type'])) {
    return { status: 415, detail: NOT_JSON };
  }
  return undefined;
}

/** The error body-parser gives for what its `verify` hook or its parse refuses (read by bodyRefusal). */
function bodyError(type: 'entity.too.deep' | 'entity.parse.failed'): Error {
  return Object.assign(new Error(type), { status: 400, type });
}

/** What body-parser does to the bytes of a JSON body once read: depth check, UTF-8, BOM, parse. */
export function parseJsonBytes(raw: Buffer, maxDepth: number): unknown {
  if (jsonDeeperThan(raw, maxDepth)) throw bodyError('entity.too.deep');
  let text = raw.toString('utf8');
  // iconv-lite, body-parser's decoder, drops a byte-order mark.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw bodyError('entity.parse.failed');
  }
}

/**
 * Whether body-parser's work on a body would be reading it and parseJsonBytes: a Content-Length
 * within the limit, no Content-Encoding, UTF-8 or no charset. Anything else is left to body-parser.
 */
export function isPlainJsonBody(headers: IncomingHttpHeaders, limitBytes: number): boolean {
  const length = headers['content-length'];
  if (length === undefined || headers['transfer-encoding'] !== undefined) return false;
  if (!(Number(length) <= limitBytes)) return false;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = headers['content-type'];
  const charset =
    type === undefined ? undefined : /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type)?.[1];
  return charset === undefined || charset.toLowerCase() === 'utf-8';
}

/**
 * The fields of body-parser's JSON options (its `OptionsJson`) this service sets: written here, so
 * that the package's type declarations need no `@types/body-parser` of a team's project.
 */
export interface JsonParserOptions {
  limit: number;
  strict: boolean;
  type: (req: IncomingMessage) => boolean;
  verify: (req: IncomingMessage, res: ServerResponse, raw: Buffer) => void;
}

/**
 * body-parser's JSON options: the size limit on the decoded body, any JSON value (the validation
 * says what a non-object is), and the depth limit checked on the raw bytes before JSON.parse, so that
 * a megabyte of `[` costs one scan and not a parse. `envelopeDepth` gives routes whose body wraps
 * what is checked (MCP: batch, message, params) the levels of their envelope on top.
 */
export function jsonParserOptions(
  limitBytes: number,
  envelopeDepth: (path: string) => number,
): JsonParserOptions {
  return {
    limit: limitBytes,
    strict: false,
    type: (req) => isJsonMediaType(req.headers['content-type']),
    verify: (req, _res, raw) => {
      if (jsonDeeperThan(raw, MAX_BODY_DEPTH + envelopeDepth(pathOf(req.url)))) {
        throw bodyError('entity.too.deep');
      }
    },
  };
}

/** A JSON body parser as a middleware: body-parser's, typed here (no `@types/body-parser` needed). */
export type JsonParser = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** body-parser's JSON parser for each body limit a route has, made once a limit (both adapters). */
export function jsonParsers(
  envelopeDepth: (path: string) => number,
): (limitBytes: number) => JsonParser {
  const parsers = new Map<number, JsonParser>();
  return (limitBytes) => {
    let parser = parsers.get(limitBytes);
    if (!parser) {
      parser = bodyParser.json(jsonParserOptions(limitBytes, envelopeDepth));
      parsers.set(limitBytes, parser);
    }
    return parser;
  };
}

/** A URL's path, without its query. */
export function pathOf(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

/** A body-parser failure (bad JSON, too large, bad charset or encoding) as a refusal; undefined otherwise. */
export function bodyRefusal(err: unknown, limitBytes: number): Refusal | undefined {
  const error = err as { type?: string; status?: number; code?: string } | undefined;
  const status = typeof error?.status === 'number' ? error.status : undefined;
  // Only the errors of reading the body: http-errors with a client status.
  if (status === undefined || status < 400 || status >= 500) return undefined;
  switch (error?.type) {
    case 'entity.parse.failed':
      return { status: 400, detail: [JSON_INVALID] };
    case 'entity.too.deep':
      return { status: 400, detail: [TOO_DEEP] };
    case 'entity.too.large':
      return { status: 413, detail: `Request body too large: the limit is ${limitBytes} bytes` };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, detail: 'Unsupported Media Type: the body must be UTF-8 JSON' };
    case 'request.aborted':
      return { status: 400, detail: 'Request aborted' };
    default:
      // A body that does not match its Content-Encoding (zlib: "incorrect header check"), ...
      return {
        status,
        detail:
          error?.code === 'Z_DATA_ERROR' || error?.code === 'Z_BUF_ERROR'
            ? 'Malformed request body: it does not match its Content-Encoding'
            : 'Malformed request body',
      };
  }
}

export const JSON_UTF8 = 'application/json; charset=utf-8';

/** A media type with `charset=utf-8` among its parameters, formatted as Express formats it. */
export function withUtf8(type: string): string {
  const parsed = contentType.parse(type);
  return contentType.format({
    type: parsed.type,
    parameters: { ...parsed.parameters, charset: 'utf-8' },
  });
}

/** Reads a request body whose length is known and within the limit; an abort is body-parser's error. */
export function readWhole(stream: Readable, callback: (error: unknown, raw: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const settle = (error: unknown) => {
    if (settled) return;
    settled = true;
    callback(error, error ? Buffer.alloc(0) : Buffer.concat(chunks, size));
  };
  stream.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  stream.once('end', () => settle(undefined));
  // 'close' follows 'end' on every request: the error is made only when the body never ended.
  const aborted = () =>
    settled ||
    settle(Object.assign(new Error('request aborted'), { status: 400, type: 'request.aborted' }));
  stream.once('error', aborted);
  stream.once('close', aborted);
}
