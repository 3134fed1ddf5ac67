import { open } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { readBounded, TooLarge } from '../../../kernel/http/bounded-body';

/** An OpenAPI document is read whole: one larger than this is refused, unread past it. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** Where a document is, and how long its reading may take. */
export interface DocumentLocation {
  /** an http(s) URL, or a file path */
  document: string;
  timeoutMs: number;
  /** the URL policy (throws when the URL is refused) */
  fetchUrl?: (url: URL) => void;
  signal?: AbortSignal;
}

/** A document read and parsed: its version decides how its schemas are read. */
export interface OpenApiDocument {
  version: '3.0' | '3.1';
  root: Record<string, unknown>;
}

/** Why a document could not be had: shown in the source's last error. */
export class DocumentUnreadable extends Error {}

function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/**
 * The document's text: from its URL (no redirect followed, within the time and MAX_DOCUMENT_BYTES)
 * or from its file (within MAX_DOCUMENT_BYTES).
 */
async function documentText(location: DocumentLocation): Promise<string> {
  if (!isUrl(location.document)) return fileText(location.document);
  const url = new URL(location.document);
  location.fetchUrl?.(url);
  const timeout = AbortSignal.timeout(location.timeoutMs);
  const signal = location.signal ? AbortSignal.any([location.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      redirect: 'manual',
      signal,
      headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' },
    });
  } catch (error) {
    if (timeout.aborted) throw new DocumentUnreadable(`no answer within ${location.timeoutMs} ms`);
    throw new DocumentUnreadable(`unreachable (${causeText(error)})`);
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel();
    const redirect = response.status >= 300 && response.status < 400;
    throw new DocumentUnreadable(
      redirect
        ? `answered a redirect (HTTP ${response.status}), not followed`
        : `answered HTTP ${response.status}`,
    );
  }
  return Buffer.from(await readBounded(response, MAX_DOCUMENT_BYTES)).toString('utf8');
}

async function fileText(path: string): Promise<string> {
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    throw new DocumentUnreadable(`cannot be opened (${(error as NodeJS.ErrnoException).code})`);
  }
  try {
    const { size } = await file.stat();
    if (size > MAX_DOCUMENT_BYTES) throw new TooLarge(MAX_DOCUMENT_BYTES);
    const buffer = Buffer.alloc(Math.min(size, MAX_DOCUMENT_BYTES) + 1);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_DOCUMENT_BYTES) throw new TooLarge(MAX_DOCUMENT_BYTES);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await file.close();
  }
}

function causeText(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const text = cause instanceof Error ? cause.message : String(cause);
  return text.slice(0, 200);
}

/** JSON, or else YAML (its aliases bounded by the parser's own limit). */
function parsed(text: string): unknown {
  const trimmed = text.trimStart();
  try {
    if (trimmed.startsWith('{')) return JSON.parse(trimmed) as unknown;
    return parseYaml(text, { maxAliasCount: 100 }) as unknown;
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0].slice(0, 200) : '';
    throw new DocumentUnreadable(`cannot be parsed as JSON or YAML (${why})`);
  }
}

/**
 * Reads and parses the document; a DocumentUnreadable says why it could not (unreachable, too
 * large, not JSON or YAML, not OpenAPI 3.0 or 3.1).
 */
export async function readDocument(location: DocumentLocation): Promise<OpenApiDocument> {
  let text: string;
  try {
    text = await documentText(location);
  } catch (error) {
    if (error instanceof TooLarge) {
      throw new DocumentUnreadable(`is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    throw error;
  }
  const root = parsed(text);
  const openapi =
    typeof root === 'object' && root !== null ? (root as { openapi?: unknown }).openapi : undefined;
  const version = typeof openapi === 'string' ? /^3\.([01])\.\d+/.exec(openapi) : null;
  if (!version) throw new DocumentUnreadable('is not an OpenAPI 3.0 or 3.1 document');
  return { version: version[1] === '0' ? '3.0' : '3.1', root: root as Record<string, unknown> };
}
