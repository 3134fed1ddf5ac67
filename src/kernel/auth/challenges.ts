import { Inject, Injectable } from '@nestjs/common';
import type { ApiError } from '../errors/api-error';
import { Settings, SETTINGS } from '../settings/settings';
import {
  BearerParams,
  insufficientPermissions,
  notAuthenticated,
  NotAuthenticatedDetail,
} from './auth.errors';
import { resourceMetadataUrl, type ResourceName } from './protected-resource';
import { ANY_TOOL_SCOPE, type WantedScope } from './scopes';

/** Where a refusal is made: what its challenge depends on. */
export interface ChallengeSite {
  /** The protected resource the call is made on: `/mcp`, or the API (every other route). */
  resource?: ResourceName;
  /** The route's 401 carries RFC 6750's error code even without OAuth (MCP clients read it). */
  bearerErrorCodes: boolean;
  /** A tool call (its scope is `services:execute`). */
  tool?: string;
  /** The scopes the route asks for, any one of which suffices. */
  scopes?: readonly WantedScope[];
}

/**
 * The `WWW-Authenticate` challenges of 401s and 403s. A 403 for a missing scope is always
 * `insufficient_scope` with the scope. A 401 without OAuth is a bare `Bearer`, with RFC 6750's
 * `invalid_token` on the routes that ask for error codes (/mcp). With OAuth (docs/oauth.md), every
 * challenge names the protected resource's metadata (RFC 9728), where a client finds the
 * authorization servers; a 401 names the scope to ask for on tool routes and /mcp, and a token that
 * was refused is `invalid_token`.
 */
@Injectable()
export class AuthChallenges {
  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

  unauthenticated(detail: NotAuthenticatedDetail, site: ChallengeSite): ApiError {
    const oauth = this.settings.oauth;
    if (!oauth) {
      return notAuthenticated(detail, site.bearerErrorCodes ? { error: 'invalid_token' } : {});
    }
    const resource = site.resource ?? 'api';
    const params: BearerParams = {
      resourceMetadata: resourceMetadataUrl(oauth.publicUrl, resource),
    };
    if (site.bearerErrorCodes || detail !== 'Not authenticated') params.error = 'invalid_token';
    if (site.tool !== undefined || resource === 'mcp') params.scope = 'services:execute';
    return notAuthenticated(detail, params);
  }

  /**
   * The 403 of a missing scope, OAuth or not: `insufficient_scope` and the scope that would do, so
   * that any client (a key's, a run's) can say what is missing; with OAuth, where to get it.
   */
  insufficientScope(site: ChallengeSite): ApiError {
    const oauth = this.settings.oauth;
    // A route open to any tool's scope asks a client for `services:execute`, the scope it names.
    const scope = site.scopes
      ?.map((wanted) => (wanted === ANY_TOOL_SCOPE ? 'services:execute' : wanted))
      .join(' ');
    return insufficientPermissions({
      error: 'insufficient_scope',
      resourceMetadata: oauth && resourceMetadataUrl(oauth.publicUrl, site.resource ?? 'api'),
      scope,
    });
  }
}
