import {
  type OpenApiOperation,
  type OperationParameter,
  RESERVED_HEADERS,
} from './openapi-operations';

/** The HTTP request of one call, before the service's own headers are added. */
export interface OperationRequest {
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

/** A call's input that cannot become a request: shown to the caller. */
export class RequestRefused extends Error {}

type Scalar = string | number | boolean;

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** An object's entries as name, value, name, value … (the `simple` and `form` styles unexploded). */
function pairs(value: Record<string, unknown>): string[] {
  return Object.entries(value).flatMap(([key, item]) => [key, text(item)]);
}

function text(value: unknown): string {
  return isScalar(value) ? String(value) : JSON.stringify(value);
}

/** A path or header value in the `simple` style: arrays and objects comma-separated. */
function simple(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(text);
  if (typeof value === 'object' && value !== null) return pairs(value as Record<string, unknown>);
  return [text(value)];
}

const DELIMITERS: Record<string, string> = { spaceDelimited: ' ', pipeDelimited: '|', form: ',' };

/** Appends a query parameter as its style says (OpenAPI 3 §4.8.12.4): form and explode by default. */
function appendQuery(query: URLSearchParams, parameter: OperationParameter, value: unknown): void {
  const style = parameter.style ?? 'form';
  const explode = parameter.explode ?? style === 'form';
  if (Array.isArray(value)) {
    if (explode) for (const item of value) query.append(parameter.name, text(item));
    else query.append(parameter.name, value.map(text).join(DELIMITERS[style] ?? ','));
    return;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (style === 'deepObject') {
      for (const [key, item] of entries) query.append(`${parameter.name}[${key}]`, text(item));
    } else if (explode) {
      for (const [key, item] of entries) query.append(key, text(item));
    } else {
      query.append(parameter.name, pairs(value as Record<string, unknown>).join(','));
    }
    return;
  }
  query.append(parameter.name, text(value));
}

/** A header's value may hold visible characters, spaces and tabs, never a line break. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The base URL with the operation's path, its `{parameters}` filled in, encoded. */
function operationUrl(baseUrl: string, operation: OpenApiOperation, args: Record<string, unknown>) {
  const byName = new Map(operation.parameters.map((p) => [p.name, p]));
  const path = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = byName.get(name)?.in === 'path' ? args[name] : undefined;
    if (value === undefined || value === null) {
      throw new RequestRefused(`The path parameter ${name} is required.`);
    }
    return simple(value).map(encodeURIComponent).join(',');
  });
  return new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
}

/**
 * The request a call of `operation` with `args` makes: path parameters encoded into the path,
 * query parameters in their style, header parameters (never one of RESERVED_HEADERS, whatever the
 * document says) and `body` as JSON.
 */
export function operationRequest(
  baseUrl: string,
  operation: OpenApiOperation,
  args: Record<string, unknown>,
): OperationRequest {
  const url = operationUrl(baseUrl, operation, args);
  const headers: Record<string, string> = {};
  for (const parameter of operation.parameters) {
    const value = args[parameter.name];
    if (value === undefined || value === null || parameter.in === 'path') continue;
    if (parameter.in === 'query') {
      appendQuery(url.searchParams, parameter, value);
      continue;
    }
    const name = parameter.name.toLowerCase();
    if (RESERVED_HEADERS.has(name)) continue;
    const headerValue = simple(value).join(',');
    if (!HEADER_VALUE.test(headerValue)) {
      throw new RequestRefused(`The header parameter ${parameter.name} cannot hold a line break.`);
    }
    headers[name] = headerValue;
  }
  const request: OperationRequest = { url, headers };
  if (operation.hasBody && args.body !== undefined) request.body = JSON.stringify(args.body);
  return request;
}
