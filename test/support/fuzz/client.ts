/**
 * The fuzz suite's raw HTTP/1.1 client (a request written byte for byte, the answer parsed by hand)
 * and what every answer must look like.
 */
import { STATUS_CODES } from 'node:http';
import { connect } from 'node:net';

/** A request with no answer after this long is a hang. */
export const ANSWER_TIMEOUT_MS = 5000;

export interface FuzzRequest {
  method: string;
  /** The request-target exactly as sent. */
  target: string;
  headers: [string, string][];
  /** Body text; none: no body and no Content-Length. */
  body?: string;
  /** Send the body chunked instead of with Content-Length. */
  chunked?: boolean;
  /** Encode the head and body one byte per character (raw bytes 0x80-0xFF) instead of UTF-8. */
  latin1?: boolean;
  /** Leave out the Host header. */
  noHost?: boolean;
  /** The HTTP version token of the request line. */
  version?: string;
  /** What the body is, when it is not readable as sent (compressed). */
  note?: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string[]>;
  body: string;
}

export type Outcome =
  | { kind: 'answer'; res: RawResponse }
  | { kind: 'no-answer'; received: string; error?: string }
  | { kind: 'timeout'; received: string };

export function encodeRequest(req: FuzzRequest, port: number): Buffer {
  const encoding: BufferEncoding = req.latin1 ? 'latin1' : 'utf8';
  const lines = [`${req.method} ${req.target} ${req.version ?? 'HTTP/1.1'}`];
  if (!req.noHost) lines.push(`Host: 127.0.0.1:${port}`);
  for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
  lines.push('Connection: close');
  const body = req.body === undefined ? undefined : Buffer.from(req.body, encoding);
  if (body !== undefined) {
    lines.push(req.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`);
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, encoding);
  if (body === undefined) return head;
  if (!req.chunked) return Buffer.concat([head, body]);
  const chunk = body.length
    ? [Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]
    : [];
  return Buffer.concat([head, ...chunk, Buffer.from('0\r\n\r\n')]);
}

/** The final answer in `data` (1xx interim answers skipped), or undefined while it is incomplete. */
export function parseResponse(
  data: Buffer,
  isHead: boolean,
  closed: boolean,
): RawResponse | undefined {
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0]);
    if (!match) return undefined;
    const status = Number(match[1]);
    const headers: Record<string, string[]> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      (headers[name] ??= []).push(line.slice(colon + 1).trim());
    }
    let body = rest.subarray(end + 4);
    if (status >= 100 && status < 200 && status !== 101) {
      rest = body;
      continue;
    }
    if (isHead || status === 204 || status === 304) return { status, headers, body: '' };
    if (headers['transfer-encoding']?.some((v) => /chunked/i.test(v))) {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = body.indexOf('\r\n');
        if (lineEnd < 0) return closed ? { status, headers, body: '' } : undefined;
        const size = parseInt(body.subarray(0, lineEnd).toString('latin1'), 16);
        if (!Number.isFinite(size)) return { status, headers, body: '' };
        if (size === 0) break;
        if (body.length < lineEnd + 2 + size)
          return closed ? { status, headers, body: '' } : undefined;
        chunks.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
        body = body.subarray(lineEnd + 2 + size + 2);
      }
      return { status, headers, body: Buffer.concat(chunks).toString('utf8') };
    }
    const length = headers['content-length']?.[0];
    if (length !== undefined) {
      const wanted = Number(length);
      if (body.length < wanted && !closed) return undefined;
      return { status, headers, body: body.subarray(0, wanted).toString('utf8') };
    }
    return closed ? { status, headers, body: body.toString('utf8') } : undefined;
  }
}

export function send(port: number, req: FuzzRequest): Promise<Outcome> {
  const isHead = req.method === 'HEAD';
  return new Promise<Outcome>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const received: Buffer[] = [];
    let error: string | undefined;
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const text = () => Buffer.concat(received).toString('latin1').slice(0, 300);
    const timer = setTimeout(
      () => finish({ kind: 'timeout', received: text() }),
      ANSWER_TIMEOUT_MS,
    );
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const res = parseResponse(Buffer.concat(received), isHead, false);
      if (res) finish({ kind: 'answer', res });
    });
    socket.on('error', (err: Error) => {
      error = err.message;
    });
    socket.on('close', () => {
      const res = parseResponse(Buffer.concat(received), isHead, true);
      finish(res ? { kind: 'answer', res } : { kind: 'no-answer', received: text(), error });
    });
    socket.write(encodeRequest(req, port));
  });
}

// ---------------------------------------------------------------------------------------------
// What the answers must look like.
// ---------------------------------------------------------------------------------------------

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function isJsonRpcError(body: Record<string, unknown>): boolean {
  return body.jsonrpc === '2.0' && isObject(body.error) && typeof body.error.code === 'number';
}

/** What is wrong with an error answer (status >= 400, not HEAD), or undefined. */
export function errorBodyProblem(res: RawResponse): string | undefined {
  const type = res.headers['content-type']?.[0] ?? '(none)';
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.body);
  } catch {
    return `a ${res.status} whose body is not JSON (Content-Type ${type}): ${JSON.stringify(cut(res.body))}`;
  }
  if (!isObject(parsed))
    return `a ${res.status} whose JSON body is not an object: ${cut(res.body)}`;
  if ('detail' in parsed) {
    if (typeof parsed.detail !== 'string' && !Array.isArray(parsed.detail)) {
      return `a ${res.status} whose detail is neither a string nor a list: ${cut(res.body)}`;
    }
  } else if (!isJsonRpcError(parsed)) {
    return `a ${res.status} whose body has no 'detail': ${cut(res.body)}`;
  }
  if (!/^application\/json\b/i.test(type)) {
    return `a ${res.status} with a JSON body served as Content-Type ${type}`;
  }
  if (/\n\s+at \S/.test(res.body)) return `a ${res.status} with a stack trace: ${cut(res.body)}`;
  return undefined;
}

/** The MCP counterpart of a 500: a JSON-RPC error -32603 (Internal error) in the answer. */
export function jsonRpcInternalError(res: RawResponse): string | undefined {
  if (!res.body.includes('-32603')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.body);
  } catch {
    return undefined;
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const internal = messages.find(
    (m) => isObject(m) && isJsonRpcError(m) && (m.error as { code: number }).code === -32603,
  );
  return internal
    ? `a JSON-RPC internal error (-32603, the MCP counterpart of a 500): ${cut(JSON.stringify(internal))}`
    : undefined;
}

export function cut(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

export function describeRequest(req: FuzzRequest): string {
  const lines = [`${req.method} ${cut(JSON.stringify(req.target), 200)} ${req.version ?? ''}`];
  for (const [name, value] of req.headers)
    lines.push(`  ${cut(JSON.stringify(`${name}: ${value}`), 200)}`);
  const flags = [req.chunked && 'chunked', req.latin1 && 'latin1', req.noHost && 'no Host'];
  if (flags.some(Boolean)) lines.push(`  (${flags.filter(Boolean).join(', ')})`);
  if (req.note !== undefined) lines.push(`  ${req.note}`);
  else if (req.body !== undefined) lines.push(`  body ${cut(JSON.stringify(req.body), 400)}`);
  return lines.join('\n');
}

export function describeOutcome(outcome: Outcome): string {
  if (outcome.kind !== 'answer') return `${outcome.kind}: ${JSON.stringify(outcome.received)}`;
  const { status, headers, body } = outcome.res;
  return `${status} ${STATUS_CODES[status] ?? ''} ${JSON.stringify(headers['content-type'] ?? [])} ${JSON.stringify(cut(body))}`;
}
