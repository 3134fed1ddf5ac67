import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
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

/** A raw HTTP/1.1 answer with a `{detail}` body, for what never reaches the application. */
function rawAnswer(status: number, detail: string, extra: string[] = []): string {
  const body = JSON.stringify({ detail });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${randomUUID()}`,
    'X-Content-Type-Options: nosniff',
    ...extra,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * The response last begun on each connection (Node's own handler reads its private
 * `_httpMessage`): an answer of ours must never go out in the middle of one already sent.
 */
const responses = new WeakMap<Duplex, ServerResponse>();

/**
 * Answers, in the `{detail}` shape, what never reaches the application: requests Node's parser
 * refuses (bad header syntax, headers too large, conflicting lengths) and clients too slow for the
 * timeouts. Node's own answer would be an empty body. The connection is closed after it.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable || responses.get(socket)?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, detail] = clientErrorAnswer(error.code);
  socket.end(rawAnswer(status, detail));
}

/** CONNECT asks for a tunnel this server never opens; without a listener Node drops the socket. */
function refuseConnect(_req: IncomingMessage, socket: Duplex): void {
  socket.end(rawAnswer(405, 'Method Not Allowed', ['Allow: DELETE, GET, HEAD, PATCH, POST']));
}

/** An `Expect` other than `100-continue`: 417 in the `{detail}` shape (Node's has no body). */
function refuseExpectation(_req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify({ detail: 'Expectation Failed: only 100-continue is supported' });
  res.writeHead(417, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': randomUUID(),
    Connection: 'close',
  });
  res.end(body);
}

/**
 * Timeouts for slow clients, a cap on open connections and `{detail}` answers for malformed
 * requests, on the app's server (Express's and Fastify's alike: both are Node's http.Server).
 */
export function hardenHttpServer(
  server: Server,
  timeouts: HttpTimeouts,
  maxConnections: number,
): void {
  // At the cap Node closes a new connection as it accepts it: nothing has been read, so no answer
  // can be sent (a client sees its connection reset or closed and may retry). Each open
  // connection costs memory and a file descriptor; without a cap, idle ones take them all.
  server.maxConnections = maxConnections;
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  // Longer than a load balancer's idle timeout (60 s on the common ones), so that the balancer,
  // not this server, closes an idle connection and never sends a request onto a closing one.
  server.keepAliveTimeout = timeouts.keepAliveMs;
  // Read by Node when the server starts listening.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.min(TIMEOUT_CHECK_INTERVAL_MS, timeouts.headersMs);
  server.removeAllListeners('clientError');
  server.on('request', (req: IncomingMessage, res: ServerResponse) =>
    responses.set(req.socket, res),
  );
  server.on('clientError', answerClientError);
  server.on('connect', refuseConnect);
  server.on('checkExpectation', refuseExpectation);
  // A request without Host reaches the application, which answers it 400 {detail}
  // (rejectMalformedRequests); Node's own answer would have no body.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
}
