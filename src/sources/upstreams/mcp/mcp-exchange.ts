import { AsyncLocalStorage } from 'node:async_hooks';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { UpstreamError } from '../upstream';

/** A message nested deeper than this is refused (the SDK's schemas recurse into it). */
export const MAX_MESSAGE_DEPTH = 128;

const NEWLINE = 0x0a;
const RETURN = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x7b, 0x5b]); // { [
const CLOSERS = new Set([0x7d, 0x5d]); // } ]

/**
 * One request of the service to an upstream (a call, a listing, the connection), and what ended
 * it early: the answers of that request fail it (a message too large or too deep, one that is not
 * JSON-RPC), which aborts the SDK's request (and sends the upstream `notifications/cancelled`).
 */
export class Exchange {
  private readonly controller = new AbortController();
  readonly signal: AbortSignal;
  fault?: UpstreamError;

  /** `maxBytes`: the bound of one message of this exchange's answers. */
  constructor(
    readonly maxBytes: number,
    signal?: AbortSignal,
  ) {
    this.signal = signal
      ? AbortSignal.any([signal, this.controller.signal])
      : this.controller.signal;
  }

  /** Ends the exchange with `fault` (the first one is kept). */
  fail(fault: UpstreamError): void {
    if (this.fault) return;
    this.fault = fault;
    this.controller.abort(fault);
  }
}

/**
 * The exchange a piece of the SDK's work belongs to. The SDK sends a request, reads its answer
 * and reports what it could not read within the async context of the call that made it, so the
 * fetch below and the client's error handler find the call's exchange here.
 */
const exchanges = new AsyncLocalStorage<Exchange>();

export function within<T>(exchange: Exchange, work: () => Promise<T>): Promise<T> {
  return exchanges.run(exchange, work);
}

export function currentExchange(): Exchange | undefined {
  return exchanges.getStore();
}

/**
 * Reads an answer's bytes as they come and says when one message is past its bounds: a JSON body
 * whole, or one event of an SSE stream (an event ends at a blank line, and a stream of small
 * events is never cut). Depth is counted outside JSON strings; in an SSE stream a line's end also
 * ends a string, so a malformed event cannot hide the next one's brackets.
 */
export class MessageMeter {
  private bytes = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private lineStart = true;

  constructor(
    private readonly sse: boolean,
    private readonly maxBytes: number,
  ) {}

  /** 'size' or 'depth' when this chunk takes a message past its bounds. */
  read(chunk: Uint8Array): 'size' | 'depth' | undefined {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      this.bytes++;
      if (this.sse && (byte === NEWLINE || byte === RETURN)) {
        if (byte === NEWLINE && this.lineStart) this.bytes = this.depth = 0;
        this.inString = this.escaped = false;
        if (byte === NEWLINE) this.lineStart = true;
        continue;
      }
      this.lineStart = false;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
      } else if (byte === QUOTE) this.inString = true;
      else if (OPENERS.has(byte) && ++this.depth > MAX_MESSAGE_DEPTH) return 'depth';
      else if (CLOSERS.has(byte)) this.depth--;
      if (this.bytes > this.maxBytes) return 'size';
    }
    return undefined;
  }
}

export interface BoundedFetchOptions {
  source: string;
  /** The bound of a message that belongs to no exchange (a stream the connection opened). */
  maxBytes: number;
  /** Checks a URL before each request (the target rules); throws when it is refused. */
  checkUrl?: (url: URL) => Promise<void>;
}

/**
 * The fetch the SDK's Streamable HTTP transport is given: each request's URL checked, each
 * answer's body read through a MessageMeter. A message past its bounds cuts the body there (the
 * rest is never read: the connection is closed) and fails the exchange it belongs to.
 */
export function boundedFetch(options: BoundedFetchOptions): typeof fetch {
  const { source, checkUrl } = options;
  return async (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (checkUrl) await checkUrl(target);
    const exchange = currentExchange();
    const maxBytes = exchange?.maxBytes ?? options.maxBytes;
    const response = await fetch(input, init);
    if (!response.body) return response;
    const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const meter = new MessageMeter(sse, maxBytes);
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          const past = meter.read(chunk);
          if (past) {
            const fault = past === 'size' ? tooLarge(source, maxBytes) : tooDeep(source);
            exchange?.fail(fault);
            return controller.error(fault);
          }
          controller.enqueue(chunk);
          // A stream's next chunk waits for the event loop's next turn: the SDK reads a stream's
          // messages in microtasks, and an upstream that floods one would otherwise hold the loop
          // (every other request waiting) for as long as it sends.
          if (sse) return new Promise<void>((resolve) => setImmediate(resolve));
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

export function tooLarge(source: string, maxBytes: number): UpstreamError {
  return new UpstreamError('too_large', `Source ${source} answered more than ${maxBytes} bytes.`);
}

export function tooDeep(source: string): UpstreamError {
  return new UpstreamError(
    'protocol',
    `Source ${source} answered JSON nested more than ${MAX_MESSAGE_DEPTH} levels deep.`,
  );
}

/**
 * Whether an error of the SDK says the upstream's answer was not JSON-RPC: not JSON (a
 * SyntaxError), not a message (zod's error), a response to no request of ours, a result not of
 * MCP's shape.
 */
export function isInvalidAnswer(error: unknown): error is Error {
  // Not `instanceof Error`: a body's JSON.parse may be another realm's (undici's, in a test's sandbox).
  if (typeof error !== 'object' || error === null || !('message' in error)) return false;
  if (typeof error.message !== 'string' || !('name' in error)) return false;
  return (
    error.name === 'SyntaxError' ||
    (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) ||
    error.name === 'ZodError' ||
    error.message.startsWith('Received a response for an unknown message ID') ||
    error.message.startsWith('Unknown message type')
  );
}

export function invalidAnswer(source: string, error: Error): UpstreamError {
  return new UpstreamError(
    'protocol',
    `Source ${source} answered invalid JSON-RPC: ${error.message.replace(/\s+/g, ' ').slice(0, 200)}`,
  );
}
