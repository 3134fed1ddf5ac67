import type { IncomingMessage } from 'node:http';
import type { RequestScope } from './request-scope';

/** A request as its log lines show it: id, method, URL (a key in it redacted), client address. */
export function requestView(req: IncomingMessage) {
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
  return {
    id: (req as RequestScope).id,
    method: req.method,
    // A key pasted into a query string by mistake is still a secret.
    url: url.replace(/sk_[0-9a-z]+/gi, 'sk_[REDACTED]'),
    remote_address: req.socket?.remoteAddress,
  };
}

/**
 * The fields that tie a line to the request it was logged for (`req`, `key_id`), for code that
 * logs while serving one: lines carry them by hand, with no async context (./request-scope.ts).
 */
export function requestLogFields(req: IncomingMessage, key?: { id: string }): object {
  return { req: requestView(req), ...(key ? { key_id: key.id } : {}) };
}
