import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What work deep below a request may read of it, however it was reached: the request object
 * itself, as the HTTP layer and the pipeline fill it in (its id, the authenticated key, the hook
 * that keeps an idempotent tool call's answer).
 */
export interface RequestScope {
  id?: string;
  apiKey?: { id: string };
  /** Set when this tool call's answer is to be kept for its Idempotency-Key; used once. */
  keepAnswer?: (status: number, body: unknown) => Promise<void>;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** The HTTP request being served, or undefined outside one (CLI, stdio MCP, start-up). */
export function currentRequest(): RequestScope | undefined {
  return storage.getStore();
}

/** Serves the rest of a request (`next`) within its scope: one AsyncLocalStorage.run a request. */
export function withinRequest(req: RequestScope, next: () => void): void {
  storage.run(req, next);
}

/** The request's keep-answer hook, taken so that an answer is kept at most once. */
export function takeKeepAnswer(req: RequestScope | undefined): RequestScope['keepAnswer'] {
  const keep = req?.keepAnswer;
  if (req) req.keepAnswer = undefined;
  return keep;
}
