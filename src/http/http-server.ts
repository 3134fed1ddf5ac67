import { randomUUID } from 'node:crypto';
import { Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HttpTimeouts } from '../settings/settings';

/** How often Node looks for connections past their headers or request timeout (its default: 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** What a client is told about a request Node's HTTP parser refused, by the parser's error code. */
function clientErrorAnswer(code: string | undefined): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout'];
    default:
      return [400, 'Bad Request: malformed HTTP request'];
  }
}

/**
 * Answers, in the `{detail}` shape, what never reaches the application: requests Node's parser
 * refuses (bad header syntax, headers too large, conflicting lengths) and clients too slow for the
 * timeouts. Node's own answer would be an empty body. The connection is closed after it.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, detail] = clientErrorAnswer(error.code);
  const body = JSON.stringify({ detail });
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${randomUUID()}`,
      'X-Content-Type-Options: nosniff',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/** Timeouts for slow clients and `{detail}` answers for malformed requests, on the app's server. */
export function hardenHttpServer(server: Server, timeouts: HttpTimeouts): void {
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  // Longer than a load balancer's idle timeout (60 s on the common ones), so that the balancer,
  // not this server, closes an idle connection and never sends a request onto a closing one.
  server.keepAliveTimeout = timeouts.keepAliveMs;
  // Read by Node when the server starts listening.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.min(TIMEOUT_CHECK_INTERVAL_MS, timeouts.headersMs);
  server.removeAllListeners('clientError');
  server.on('clientError', answerClientError);
}
