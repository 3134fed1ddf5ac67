import { readBounded, TooLarge } from '../kernel/http/bounded-body';

/** What every request to an authorization server is held to (docs/oauth.md#issuers-are-bounded). */
export interface IssuerFetchLimits {
  /** An answer's body longer than this is refused: the connection is closed past it. */
  maxBytes: number;
  /** The whole exchange, headers and body, ends after this long. */
  timeoutMs: number;
}

/** An issuer's answer read whole, within the limits. */
export interface IssuerAnswer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

/**
 * An answer refused for what it is (a redirect, or too long): the issuer's failure. Its message
 * names neither the URL's query nor a redirect's target, which may carry secrets.
 */
export class IssuerAnswerRefused extends Error {}

/**
 * GETs `url` from an authorization server, bounded: a redirect is refused, not followed; a body
 * longer than `maxBytes` (declared by Content-Length or found while reading) is refused, unread
 * past the limit; `timeoutMs` bounds headers and body together (or `signal`, when it aborts first).
 * Node's fetch offers no limit on a body's size: the body is read here, chunk by chunk.
 */
export async function fetchBounded(
  url: string,
  limits: IssuerFetchLimits,
  init: { headers?: RequestInit['headers']; signal?: AbortSignal } = {},
): Promise<IssuerAnswer> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  const response = await fetch(url, { headers: init.headers, redirect: 'manual', signal });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new IssuerAnswerRefused(`a redirect (HTTP ${response.status}), not followed`);
  }
  let body: Uint8Array;
  try {
    body = await readBounded(response, limits.maxBytes);
  } catch (error) {
    throw error instanceof TooLarge ? tooLong(limits.maxBytes) : error;
  }
  return { status: response.status, headers: response.headers, body };
}

function tooLong(maxBytes: number): IssuerAnswerRefused {
  return new IssuerAnswerRefused(
    `an answer longer than ${maxBytes} bytes (OAUTH_ISSUER_MAX_BYTES)`,
  );
}

/** The answer's body as JSON; a body that is not JSON is the issuer's failure too. */
export function jsonOf(answer: IssuerAnswer): unknown {
  try {
    return JSON.parse(Buffer.from(answer.body).toString('utf8')) as unknown;
  } catch {
    throw new IssuerAnswerRefused('an answer that is not JSON');
  }
}
