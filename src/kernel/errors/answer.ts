import { HttpException, HttpStatus, Logger } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { StoreUnavailableError } from '../store/store';
import { ApiError } from './api-error';

export const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Not authenticated',
  403: 'Insufficient permissions for this operation.',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Request body too large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface Answer {
  status: number;
  detail: unknown;
  headers: Record<string, string | number>;
}

const STORE_UNAVAILABLE: Answer = {
  status: HttpStatus.SERVICE_UNAVAILABLE,
  detail: 'Service temporarily unavailable: the data store cannot be reached. Retry shortly.',
  headers: { 'Retry-After': 1 },
};

/**
 * What a client is told of an error, for REST (this filter) and MCP tool calls alike: the store
 * down is 503, an HttpException its own status and detail, anything else a bare 500. Server-side
 * failures are logged, naming `where`, with `logFields` (the request's, when there is one: made
 * only for a line written, not for the refusals a client's mistakes get).
 */
export function errorAnswer(
  exception: unknown,
  logger: Logger,
  where: string,
  logFields: () => object = () => ({}),
): Answer {
  const answer = answerOf(exception);
  if (exception instanceof StoreUnavailableError) {
    // One line, no stack: during an outage every call lands here, and the store's connection
    // already logs each distinct failure with its cause.
    logger.warn(logFields(), `Store unavailable on ${where}: ${exception.message}`);
  } else if (!(exception instanceof HttpException) && answer.status === 500) {
    logger.error({ ...logFields(), err: exception }, `Unhandled error on ${where}`);
  } else if (exception instanceof ApiError && (answer.status === 503 || answer.status === 504)) {
    // A refusal the service decided in its own words (a tool at capacity, past its deadline, an
    // authorization server that cannot be asked): counted in /metrics, and one line at most, no
    // stack, so that a flood of them is not a flood of the log.
    if (answer.status === 504) logger.warn(logFields(), `${where}: ${String(answer.detail)}`);
  } else if (answer.status >= 500) {
    logger.error({ ...logFields(), err: exception }, `Server error on ${where}`);
  }
  return answer;
}

/** What a client is told of an error, without logging it (errorAnswer logs). */
export function answerOf(exception: unknown): Answer {
  if (exception instanceof StoreUnavailableError) return STORE_UNAVAILABLE;
  if (!(exception instanceof HttpException)) {
    return asClientError(exception) ?? { status: 500, detail: STATUS_TEXT[500], headers: {} };
  }
  const status = exception.getStatus();
  const headers = exception instanceof ApiError ? exception.headers : {};
  return { status, detail: detailOf(exception, status), headers };
}

/**
 * A client's mistake reported by Express's own libraries as an http-errors object (static files:
 * 416 for an unsatisfiable Range, 412 for a failed precondition): its status and standard text,
 * never a 500. `Content-Range` is kept on a 416, as RFC 9110 asks.
 */
function asClientError(exception: unknown): Answer | undefined {
  const error = exception as { status?: unknown; expose?: unknown; headers?: unknown };
  if (typeof error?.status !== 'number' || error.status < 400 || error.status >= 500) return;
  if (error.expose !== true) return;
  const range = (error.headers as Record<string, unknown> | undefined)?.['Content-Range'];
  return {
    status: error.status,
    detail: STATUS_TEXT[error.status] ?? STATUS_CODES[error.status] ?? 'Bad Request',
    headers: typeof range === 'string' ? { 'Content-Range': range } : {},
  };
}

/** The `detail` a client gets for an HttpException. */
function detailOf(exception: HttpException, status: number): unknown {
  const body = exception.getResponse();
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object') {
    if ('detail' in body) return body.detail;
    // Nest's built-in exceptions carry their text in `message`; keep it when it is a sentence.
    if ('message' in body && typeof body.message === 'string' && status < 500) return body.message;
  }
  return STATUS_TEXT[status] ?? 'Error';
}
