import { ApiError } from '../errors/api-error';

export const INSUFFICIENT_PERMISSIONS = 'Insufficient permissions for this operation.';

/** 401 with `WWW-Authenticate: Bearer`, and RFC 6750's `error="invalid_token"` where asked. */
export function notAuthenticated(
  detail: 'Not authenticated' | 'Invalid API key',
  withErrorCode = false,
): ApiError {
  return new ApiError(401, detail, {
    'WWW-Authenticate': withErrorCode ? 'Bearer error="invalid_token"' : 'Bearer',
  });
}

/** 403; with RFC 6750's `error="insufficient_scope"` naming the scopes where asked. */
export function insufficientPermissions(scopes?: readonly string[]): ApiError {
  const challenge = scopes
    ? { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scopes.join(' ')}"` }
    : undefined;
  return new ApiError(403, INSUFFICIENT_PERMISSIONS, challenge);
}
