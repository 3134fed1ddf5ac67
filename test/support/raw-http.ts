import { connect } from 'node:net';

/** What came back over a raw connection: the status line's code, headers (lower case) and body text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** Raw clients need a real socket: the app's loopback port (test/support/app.ts). */
export { listenOnLoopback } from './app';

function parse(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  let body = split === -1 ? '' : raw.slice(split + 4);
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, json };
}

function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    if (eol === -1) return out;
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/**
 * Sends bytes exactly as given (request line, headers, body: anything a hostile client could send)
 * and reads until the server closes the connection or `timeoutMs` passes.
 */
export function sendRaw(
  port: number,
  request: string | Buffer,
  options: { timeoutMs?: number; keepOpen?: boolean } = {},
): Promise<RawResponse & { closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parse(Buffer.concat(chunks).toString('utf8')), closed });
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 5000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      closed = true;
      finish();
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      // A server that resets after answering still answered.
      if (chunks.length) finish();
      else reject(error);
    });
    socket.write(request);
  });
}

/** A request line and headers as a client would write them, `Connection: close` added. */
export function rawRequest(
  method: string,
  path: string,
  headers: [string, string][] = [],
  body = '',
): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
