import type { IncomingMessage } from 'node:http';
import type { CallerRef, RequestScope } from './request-scope';

/** A request as its log lines show it: id, method, URL (a key in it redacted), client address. */
export function requestView(req: IncomingMessage) {
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
  return {
    id: (req as RequestScope).id,
    method: req.method,
    // A key or a token pasted into a query string by mistake is still a secret.
    url: url
      .replace(/sk_[0-9a-z]+/gi, 'sk_[REDACTED]')
      .replace(/eyJ[\w-]*\.[\w.~+/=-]*/g, '[REDACTED]')
      .replace(/(access_token=)[^&#]*/gi, '$1[REDACTED]'),
    remote_address: req.socket?.remoteAddress,
  };
}

/**
 * The fields that name a caller in a log line: `key_id`, or for OAuth `principal_id` and the
 * `client_id` of its token (a principal is one subject, whatever the client it calls through).
 */
export function callerLogField(caller?: CallerRef): object | undefined {
  if (!caller) return undefined;
  return caller.kind === 'principal'
    ? { principal_id: caller.id, client_id: caller.client_id ?? null }
    : { key_id: caller.id };
}

/**
 * The fields that tie a line to the request it was logged for (`req`, `key_id` or
 * `principal_id`), for code that logs while serving one: lines carry them by hand, with no async
 * context (./request-scope.ts).
 */
export function requestLogFields(req: IncomingMessage, caller?: CallerRef): object {
  return { req: requestView(req), ...callerLogField(caller) };
}
