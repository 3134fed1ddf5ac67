import { Inject, Injectable } from '@nestjs/common';
import type { ApiError } from '../kernel/errors/api-error';
import { Settings, SETTINGS } from '../kernel/settings/settings';
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
  /** The route's 401 and 403 carry RFC 6750 error codes even without OAuth (MCP clients read them). */
  bearerErrorCodes: boolean;
  /** A tool call (its scope is `services:execute`). */
  tool?: string;
  /** The scopes the route asks for, any one of which suffices. */
  scopes?: readonly WantedScope[];
}

/**
 * The `WWW-Authenticate` challenges of 401s and 403s. Without OAuth, as they always were: a bare
 * `Bearer`, and RFC 6750's error codes on the routes that ask for them (/mcp). With OAuth
 * (docs/oauth.md), every 401 names the protected resource's metadata (RFC 9728), where a client
 * finds the authorization servers, and the scope to ask for on tool routes and /mcp; a token that
 * was refused is `invalid_token`; a 403 for a missing scope is `insufficient_scope` with the scope.
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

  insufficientScope(site: ChallengeSite): ApiError {
    const oauth = this.settings.oauth;
    // A route open to any tool's scope asks a client for `services:execute`, the scope it names.
    const scope = site.scopes
      ?.map((wanted) => (wanted === ANY_TOOL_SCOPE ? 'services:execute' : wanted))
      .join(' ');
    if (!oauth) {
      return insufficientPermissions(
        site.bearerErrorCodes ? { error: 'insufficient_scope', scope } : undefined,
      );
    }
    return insufficientPermissions({
      error: 'insufficient_scope',
      resourceMetadata: resourceMetadataUrl(oauth.publicUrl, site.resource ?? 'api'),
      scope,
    });
  }
}
