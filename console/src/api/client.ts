import createClient from 'openapi-fetch';
import { session } from '../session';
import type { components, paths } from './openapi';

export type Schemas = components['schemas'];

/**
 * The service's API, typed from its own OpenAPI document (openapi.d.ts, generated at build time):
 * a route or field the API no longer has fails the build. Every request carries the signed-in key.
 * Its answers are read as JSON (a route that also streams CSV or NDJSON is read by download.ts).
 */
export const api = createClient<paths, 'application/json'>({ baseUrl: window.location.origin });

api.use({
  onRequest({ request }) {
    const key = session.key();
    if (key && !request.headers.has('Authorization')) {
      request.headers.set('Authorization', `Bearer ${key}`);
    }
    return request;
  },
});

/** An answer that was not a success, with its `{detail}` in words. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** Seconds the answer asked to wait (`Retry-After` of a 429 or 503). */
    readonly retryAfter?: number,
  ) {
    super(status ? `${status}: ${detail}` : detail);
    this.name = 'ApiFailure';
  }

  /** Worth asking again, later: the service was busy, limited the key, or could not be reached. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status === 503;
  }
}

/** How long to wait before asking again after `error`, in ms (its Retry-After, else doubling). */
export function retryDelay(attempt: number, error: unknown): number {
  const after = error instanceof ApiFailure ? error.retryAfter : undefined;
  return Math.min(30_000, after !== undefined ? after * 1000 : 500 * 2 ** attempt);
}

/** Whether a read that failed with `error` is asked again (at most three times). */
export function retryRead(attempts: number, error: unknown): boolean {
  return attempts < 3 && error instanceof ApiFailure && error.transient;
}

/** Runs `read`, asking again as `retryRead` allows. */
export async function withRetry<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (!retryRead(attempt, error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryDelay(attempt, error)));
    }
  }
}

/** One problem of a 400's `detail` list: where (`["body", "name"]`) and what. */
export interface Issue {
  loc?: (string | number)[];
  msg?: string;
}

/** The issues of a 400's body (its `detail` list), or none. */
export function issuesOf(body: unknown): Issue[] {
  const detail = (body as { detail?: unknown } | null | undefined)?.detail;
  return Array.isArray(detail) ? (detail as Issue[]) : [];
}

/** An issue in words: `field: message`. */
export function issueText(issue: Issue): string {
  const where = (issue.loc ?? []).filter((part) => part !== 'body').join('.');
  return where ? `${where}: ${issue.msg ?? ''}` : (issue.msg ?? '');
}

/** The `detail` of an error body in words: the sentence, or each issue as `field: message`. */
export function detailText(
  body: unknown,
  response: { status: number; statusText: string },
): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return issuesOf(body).map(issueText).join('; ');
  return response.statusText || `HTTP ${response.status}`;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Waits for an answer: its body, or an ApiFailure (a network failure is status 0). */
export async function answered<T>(
  call: Promise<Answer<T>>,
): Promise<{ data: T; response: Response }> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (error) {
    throw new ApiFailure(0, `The service cannot be reached (${(error as Error).message}).`);
  }
  if (!answer.response.ok) {
    const after = Number(answer.response.headers.get('Retry-After') ?? NaN);
    throw new ApiFailure(
      answer.response.status,
      detailText(answer.error, answer.response),
      Number.isFinite(after) ? after : undefined,
    );
  }
  return { data: answer.data as T, response: answer.response };
}

/** The body of a successful answer, or an ApiFailure. */
export async function ok<T>(call: Promise<Answer<T>>): Promise<T> {
  return (await answered(call)).data;
}

/** A page of a list, and the cursor of the next one from its `Link` header (none at the end). */
export interface Page<T> {
  items: T[];
  next?: string;
}

export function nextCursor(response: Response): string | undefined {
  const link = response.headers.get('Link');
  const url = link?.match(/^<([^>]+)>;\s*rel="next"$/)?.[1];
  return url
    ? (new URL(url, window.location.origin).searchParams.get('cursor') ?? undefined)
    : undefined;
}

export async function listPage<T>(call: Promise<Answer<T[]>>): Promise<Page<T>> {
  const { data, response } = await answered(call);
  return { items: data, next: nextCursor(response) };
}
