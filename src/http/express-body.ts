import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { type RequestScope, withinRequest } from '../common/request-scope';
import type { ValidationIssue } from '../common/validation-issue';
import { jsonDeeperThan } from './json-depth';

/**
 * Express's share of the HTTP plumbing: request ids, the JSON-only gate, and body parsing with its
 * errors, each answered in the `{detail}` shape before anything else looks at the request.
 */

export const JSON_INVALID: ValidationIssue = {
  loc: ['body'],
  msg: 'JSON decode error',
  type: 'json_invalid',
};

/** Deeper bodies are refused while they are read, before any parser or recursive walk meets them. */
export const MAX_BODY_DEPTH = 32;

export const TOO_DEEP: ValidationIssue = {
  loc: ['body'],
  msg: `Input is nested too deeply (more than ${MAX_BODY_DEPTH} levels)`,
  type: 'value_error',
};

/** An incoming X-Request-Id is kept when it is this well-formed; otherwise a new one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Media types read as JSON; no Content-Type at all is read as JSON too. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  (req as Request & { id: string }).id = id;
  res.setHeader('X-Request-Id', id);
  next();
}

function hasBody(req: Request): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
  );
}

/** Serves the rest of the request within its scope (src/common/request-scope.ts). */
export function requestScope(req: Request, _res: Response, next: NextFunction): void {
  withinRequest(req as RequestScope, next);
}

/** Bodies of any other media type are refused before anything else looks at the request. */
export function jsonOnly(req: Request, res: Response, next: NextFunction): void {
  if (hasBody(req) && !isJsonMediaType(req.headers['content-type'])) {
    res
      .status(415)
      .json({ detail: "Unsupported Media Type: send 'Content-Type: application/json'" });
    return;
  }
  next();
}

/**
 * Refuses a body nested deeper than MAX_BODY_DEPTH as it is read, before JSON.parse: one pass over
 * the bytes, so that a megabyte of `[` costs a scan and not a parse (body-parser's `verify` hook).
 * `envelopeDepth` gives routes whose body wraps what is checked (MCP: batch, message, params) the
 * levels of their envelope on top.
 */
export function refuseDeepBodies(envelopeDepth: (path: string) => number) {
  return (req: Request, _res: Response, raw: Buffer): void => {
    if (jsonDeeperThan(raw, MAX_BODY_DEPTH + envelopeDepth(req.path))) {
      throw Object.assign(new Error('JSON body nested too deeply'), {
        status: 400,
        type: 'entity.too.deep',
      });
    }
  };
}

/** Body-parser failures (bad JSON, too large, bad charset or encoding) as `{detail}`, before auth. */
export function bodyErrors(limitBytes: number) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    const error = err as { type?: string; status?: number; code?: string };
    const status = typeof error?.status === 'number' ? error.status : undefined;
    // Only the errors of reading the body: http-errors with a client status.
    if (res.headersSent || status === undefined || status < 400 || status >= 500) return next(err);
    switch (error.type) {
      case 'entity.parse.failed':
        res.status(400).json({ detail: [JSON_INVALID] });
        return;
      case 'entity.too.deep':
        res.status(400).json({ detail: [TOO_DEEP] });
        return;
      case 'entity.too.large':
        res
          .status(413)
          .json({ detail: `Request body too large: the limit is ${limitBytes} bytes` });
        return;
      case 'encoding.unsupported':
      case 'charset.unsupported':
        res.status(415).json({ detail: 'Unsupported Media Type: the body must be UTF-8 JSON' });
        return;
      case 'request.aborted':
        res.status(400).json({ detail: 'Request aborted' });
        return;
      default:
        // A body that does not match its Content-Encoding (zlib: "incorrect header check"), ...
        res.status(status).json({
          detail:
            error.code === 'Z_DATA_ERROR' || error.code === 'Z_BUF_ERROR'
              ? 'Malformed request body: it does not match its Content-Encoding'
              : 'Malformed request body',
        });
    }
  };
}
