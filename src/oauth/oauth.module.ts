import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module';
import { AccessTokens } from './access-tokens';
import { AuthorizationServers } from './authorization-servers';
import { PrincipalsController } from './principals.controller';
import { Principals } from './principals.service';
import { PrincipalUpkeep } from './principals.upkeep';
import { ProtectedResourceController } from './protected-resource.controller';

/**
 * OAuth access tokens without HTTP routes: the authorization servers of OAUTH_ISSUERS, the token
 * verifier, the principals. The pipeline's authentication step uses it in every process.
 */
@Module({
  imports: [LimitsModule],
  providers: [AuthorizationServers, AccessTokens, Principals],
  exports: [AuthorizationServers, Principals],
})
export class OAuthCoreModule {}

/**
 * The service as an OAuth protected resource (docs/oauth.md): the RFC 9728 metadata documents,
 * the operators' routes about principals, and the principals' upkeep (merge, idle purge). Off (404s, no challenge parameters) until OAUTH_ISSUERS.
 */
@Module({
  imports: [OAuthCoreModule, LimitsModule],
  controllers: [ProtectedResourceController, PrincipalsController],
  providers: [PrincipalUpkeep],
})
export class OAuthModule {}
