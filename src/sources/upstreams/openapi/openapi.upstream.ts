import {
  type Upstream,
  type UpstreamCallOptions,
  UpstreamError,
  type UpstreamResult,
  type UpstreamToolList,
} from '../upstream';
import type { ClientCredentials } from '../client-credentials';
import { DocumentUnreadable, readDocument } from './openapi-document';
import { readBounded, TooLarge } from '../../../kernel/http/bounded-body';
import { type OpenApiOperation, operationsOf } from './openapi-operations';
import { operationRequest, RequestRefused } from './openapi-request';

export interface OpenApiUpstreamOptions {
  /** the source's name, in every error's text */
  source: string;
  /** the OpenAPI document: an http(s) URL, or a file path */
  document: string;
  /** where the operations are called (the document's `servers` are not used) */
  baseUrl: string;
  /** the source's own credentials (Authorization …), added to every call */
  headers: Record<string, string>;
  /** the source's OAuth client: its token on every call, asked anew after a 401 */
  credentials?: ClientCredentials;
  /** how long reading the document, or one call, may take */
  timeoutMs: number;
  /** an answer longer than this is refused, unread past it */
  maxResultBytes: number;
  /** the URL policy: throws when a URL is refused */
  fetchUrl?: (url: URL) => void;
}

/** What an unreachable source's caller is told to wait. */
export const RETRY_AFTER_SECONDS = 5;
/** A status's detail is for a caller's eyes, not a copy of the upstream's page. */
const MAX_DETAIL_CHARACTERS = 200;
const USER_AGENT = 'tool-invocation-service-sources/1';

/**
 * An OpenAPI 3.0 or 3.1 service as a source: each operation with an `operationId` is a tool
 * (openapi-operations.ts), each call one HTTP request to the base URL (openapi-request.ts) with
 * the source's headers and `traceparent`, never following a redirect, aborted at the deadline,
 * its answer bounded; a 2xx JSON answer is the result, any other status an UpstreamError.
 */
export class OpenApiUpstream implements Upstream {
  /** What the last reading of the document listed; undefined until it was read once. */
  private operations?: Map<string, OpenApiOperation>;
  private readonly calls = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: OpenApiUpstreamOptions) {}

  /** Reads the document again and lists its tools; the calls use what it lists from then on. */
  async listTools(): Promise<UpstreamToolList> {
    const { source } = this.options;
    let list;
    try {
      const document = await readDocument(this.options);
      list = operationsOf(document);
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      const why = error instanceof Error ? error.message : String(error);
      const reason = error instanceof DocumentUnreadable ? `Its OpenAPI document ${why}.` : why;
      throw new UpstreamError(
        'unavailable',
        `Source ${source} is unavailable: ${reason}`,
        RETRY_AFTER_SECONDS,
      );
    }
    this.operations = list.operations;
    return { tools: list.tools, omitted: list.omitted };
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: UpstreamCallOptions,
  ): Promise<UpstreamResult> {
    if (!this.operations && !this.closed) await this.listTools();
    const operation = this.operations?.get(name);
    if (!operation || this.closed) throw this.unavailable();
    let request;
    try {
      request = operationRequest(this.options.baseUrl, operation, args);
    } catch (error) {
      if (!(error instanceof RequestRefused)) throw error;
      throw new UpstreamError('protocol', `Source ${this.options.source}: ${error.message}`);
    }
    try {
      this.options.fetchUrl?.(request.url);
    } catch {
      throw this.unavailable();
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      ...request.headers,
      ...lowerCased(this.options.headers),
    };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (options.traceparent) headers.traceparent = options.traceparent;
    const method = operation.method.toUpperCase();
    const { credentials } = this.options;
    if (!credentials) return this.send(method, request.url, headers, request.body, options);
    for (let attempt = 1; ; attempt++) {
      headers.authorization = `Bearer ${await credentials.token()}`;
      try {
        return await this.send(method, request.url, headers, request.body, options);
      } catch (error) {
        // A token the upstream refuses (expired early, revoked): once more with a new one.
        if (attempt > 1 || !(error instanceof UpstreamError) || error.status !== 401) throw error;
        await credentials.onUnauthorized();
      }
    }
  }

  /** One request, aborted by the caller's signal, the timeout or close(); its answer read bounded. */
  private async send(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    options: UpstreamCallOptions,
  ): Promise<UpstreamResult> {
    const controller = new AbortController();
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = AbortSignal.any([options.signal, timeout, controller.signal]);
    this.calls.add(controller);
    try {
      const response = await fetch(url, { method, headers, body, redirect: 'manual', signal });
      const bytes = await readBounded(response, this.options.maxResultBytes);
      return this.result(response, Buffer.from(bytes).toString('utf8'));
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      if (error instanceof UpstreamError) throw error;
      if (error instanceof TooLarge) {
        const { source, maxResultBytes } = this.options;
        throw new UpstreamError(
          'too_large',
          `Source ${source} answered more than ${maxResultBytes} bytes.`,
        );
      }
      throw this.unavailable();
    } finally {
      this.calls.delete(controller);
    }
  }

  /** A 2xx's JSON (or text) body as the result; any other status the upstream's detail. */
  private result(response: Response, text: string): UpstreamResult {
    const { source } = this.options;
    const status = response.status;
    const json = parsedJson(text);
    if (status >= 200 && status < 300) {
      if (json.ok) return { kind: 'json', status, body: json.value };
      if (/^text\//i.test(response.headers.get('content-type') ?? '')) {
        return { kind: 'json', status, body: text };
      }
      throw new UpstreamError(
        'protocol',
        `Source ${source} answered ${status} with a body that is not JSON.`,
      );
    }
    throw new UpstreamError(
      'status',
      `Source ${source} answered ${status}: ${detailOf(json, text)}`,
      undefined,
      status,
    );
  }

  private unavailable(): UpstreamError {
    return new UpstreamError(
      'unavailable',
      `Source ${this.options.source} is unavailable. Retry after ${RETRY_AFTER_SECONDS} seconds.`,
      RETRY_AFTER_SECONDS,
    );
  }

  close(): Promise<void> {
    this.closed = true;
    for (const controller of this.calls) controller.abort();
    this.calls.clear();
    return Promise.resolve();
  }
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
}

function parsedJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The answer's `detail` (FastAPI, RFC 9457), else its body: at most 200 characters either way. */
function detailOf(json: { ok: true; value: unknown } | { ok: false }, text: string): string {
  const detail =
    json.ok && typeof json.value === 'object' && json.value !== null
      ? (json.value as { detail?: unknown }).detail
      : undefined;
  const shown =
    typeof detail === 'string' ? detail : detail !== undefined ? JSON.stringify(detail) : text;
  const cut = shown.trim().slice(0, MAX_DETAIL_CHARACTERS);
  return cut === '' ? '(no body)' : cut;
}
