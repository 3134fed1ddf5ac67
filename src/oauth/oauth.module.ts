import { WebhooksModule } from '../webhooks';
import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits';
import { SubjectsModule } from '../subjects';
import { AccessTokens } from './access-tokens';
import { AuthorizationServers } from './authorization-servers';
import { PrincipalsService } from './principals.service';
import { PrincipalSubjects } from './principal.subjects';

/**
 * OAuth access tokens without HTTP routes: the authorization servers of OAUTH_ISSUERS, the token
 * verifier, the principals. Authentication (CallChecks) uses it in every process.
 */
@Module({
  imports: [LimitsModule, SubjectsModule, WebhooksModule],
  providers: [AuthorizationServers, AccessTokens, PrincipalsService, PrincipalSubjects],
  exports: [AuthorizationServers, PrincipalsService, PrincipalSubjects],
})
export class OAuthModule {}
