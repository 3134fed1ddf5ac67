import { ApiError } from '../errors/api-error';

export const INSUFFICIENT_PERMISSIONS = 'Insufficient permissions for this operation.';

/** What a 401 says: no credentials, a key that opens nothing, or an access token refused. */
export type NotAuthenticatedDetail =
  'Not authenticated' | 'Invalid API key' | 'Invalid access token' | 'Run has ended.';

/**
 * The parameters of a `WWW-Authenticate: Bearer` challenge, in the order they are written:
 * RFC 6750's error code, RFC 9728's `resource_metadata` (where an OAuth client finds the
 * authorization servers) and the scope to ask for. None: a bare `Bearer`.
 */
export interface BearerParams {
  error?: 'invalid_token' | 'insufficient_scope';
  resourceMetadata?: string;
  scope?: string;
}

export function bearerChallenge(params: BearerParams): string {
  const parts: string[] = [];
  if (params.error) parts.push(`error="${params.error}"`);
  if (params.resourceMetadata) parts.push(`resource_metadata="${params.resourceMetadata}"`);
  if (params.scope) parts.push(`scope="${params.scope}"`);
  return parts.length ? `Bearer ${parts.join(', ')}` : 'Bearer';
}

/** 401 with its `WWW-Authenticate: Bearer` challenge. */
export function notAuthenticated(
  detail: NotAuthenticatedDetail,
  params: BearerParams = {},
): ApiError {
  return new ApiError(401, detail, { 'WWW-Authenticate': bearerChallenge(params) });
}

/** 403 with its challenge (`error="insufficient_scope"` and the scopes that would do). */
export function insufficientPermissions(params: BearerParams): ApiError {
  return new ApiError(403, INSUFFICIENT_PERMISSIONS, {
    'WWW-Authenticate': bearerChallenge(params),
  });
}
