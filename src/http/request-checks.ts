import type { NextFunction, Request, Response } from 'express';

export const MALFORMED_PATH = 'Malformed percent-encoding in the request path';
export const MISSING_HOST = 'Bad Request: HTTP/1.1 requires a Host header';

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
 * Refuses, before routing and in the `{detail}` shape, what no route should see: a path with a
 * malformed percent-encoding (no route, parameter decoder or label lookup ever meets one), and an
 * HTTP/1.1 request without `Host` (which Node would otherwise answer itself, with an empty body).
 */
export function rejectMalformedRequests(req: Request, res: Response, next: NextFunction): void {
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    res.status(400).json({ detail: MISSING_HOST });
    return;
  }
  const url = req.url;
  const query = url.indexOf('?');
  if (wellFormedPath(query === -1 ? url : url.slice(0, query))) return next();
  res.status(400).json({ detail: MALFORMED_PATH });
}
