import type { NextFunction, Request, Response } from 'express';

export const MALFORMED_PATH = 'Malformed percent-encoding in the request path';

/** Whether every `%` of a path starts an escape that decodes to UTF-8; a URIError otherwise. */
export function wellFormedPath(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses a path with a malformed percent-encoding before routing, so that no route, parameter
 * decoder or label lookup ever sees one: 400, whatever the method or the route.
 */
export function rejectMalformedPaths(req: Request, res: Response, next: NextFunction): void {
  const url = req.url;
  const query = url.indexOf('?');
  if (wellFormedPath(query === -1 ? url : url.slice(0, query))) return next();
  res.status(400).json({ detail: MALFORMED_PATH });
}
