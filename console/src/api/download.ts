import { ApiFailure, detailText, withRetry } from './client';
import { session } from '../session';

/**
 * A GET of the API with the signed-in key in its Authorization header, for the answers the typed
 * client does not read whole (a stream, a file): the key never goes into a URL. A refusal is an
 * ApiFailure with its `{detail}`; a busy service (429, 503) is asked again after its Retry-After.
 */
export function fetchWithKey(
  path: string,
  accept: string,
  signal?: AbortSignal,
): Promise<Response> {
  return withRetry(async () => {
    let response: Response;
    try {
      response = await fetch(path, {
        headers: { Accept: accept, Authorization: `Bearer ${session.key() ?? ''}` },
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiFailure(0, `The service cannot be reached (${(error as Error).message}).`);
    }
    if (response.ok) return response;
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      // Not JSON: the status says it.
    }
    const after = Number(response.headers.get('Retry-After') ?? NaN);
    throw new ApiFailure(
      response.status,
      detailText(body, response),
      Number.isFinite(after) ? after : undefined,
    );
  });
}

/** Each line of an NDJSON answer, parsed, as it streams: memory holds one chunk at a time. */
export async function* ndjsonLines<T>(response: Response): AsyncGenerator<T> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const lines = (rest + value).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) yield JSON.parse(line) as T;
  }
  if (rest.trim()) yield JSON.parse(rest) as T;
}

/**
 * Saves an answer of the API as a file: fetched with the key in its header, kept as a Blob, and
 * handed to the browser's download through an object URL (never a URL of the API with the key).
 */
export async function download(path: string, accept: string, filename: string): Promise<void> {
  const blob = await (await fetchWithKey(path, accept)).blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click is handled; the object URL is let go after.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
