/**
 * What the layers of a request write on the request object itself for the ones after them (its
 * id, the authenticated key). It travels as the request does, by hand: no AsyncLocalStorage, whose
 * hook every promise would pay on Node 20.
 */
export interface RequestScope {
  id?: string;
  apiKey?: { id: string };
}
