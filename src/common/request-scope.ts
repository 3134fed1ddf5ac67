/**
 * What the layers of a request write on the request object itself for the ones after them (its
 * id, the authenticated key, the hook that keeps an idempotent tool call's answer). It travels as
 * the request does, by hand: no AsyncLocalStorage, whose hook every promise would pay on Node 20.
 */
export interface RequestScope {
  id?: string;
  apiKey?: { id: string };
  /**
   * Set when this tool call's answer is to be kept for its Idempotency-Key; used once. `ran` false:
   * the tool never ran (its input was refused), and the claim is dropped instead.
   */
  keepAnswer?: (status: number, body: unknown, ran?: boolean) => Promise<void>;
}

/** The request's keep-answer hook, taken so that an answer is kept at most once. */
export function takeKeepAnswer(req: RequestScope | undefined): RequestScope['keepAnswer'] {
  const keep = req?.keepAnswer;
  if (req) req.keepAnswer = undefined;
  return keep;
}
