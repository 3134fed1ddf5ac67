/**
 * The oauth feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { InvalidAccessToken } from './access-tokens';
export { AuthorizationServers } from './authorization-servers';
export { OAuthModule } from './oauth.module';
export { DeletedPrincipal, PrincipalView, UpdatePrincipalInput } from './principals.dto';
export { PrincipalsService } from './principals.service';
export { PrincipalUpkeep } from './principals.upkeep';
export { PRINCIPALS_PATH, PrincipalSubjects } from './principal.subjects';
