/**
 * The auth feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { BearerErrorCodes, OAuthResource, Public, Scopes } from './auth.decorators';
export { INSUFFICIENT_PERMISSIONS } from './auth.errors';
export type { NotAuthenticatedDetail } from './auth.errors';
export { AuthChallenges } from './challenges';
export { RESOURCE_METADATA_PATH, resourceUrl } from './protected-resource';
export type { ResourceName } from './protected-resource';
export {
  ANY_TOOL_SCOPE,
  DEFAULT_SCOPE_TEMPLATE,
  KNOWN_SCOPES,
  SCOPE_MEANINGS,
  SCOPE_TEMPLATES,
  TOOL_SCOPE_PREFIX,
  ToolCatalog,
  WILDCARD_SCOPES,
  hasAnyScope,
  hasScope,
  isValidScope,
  toolScope,
  validScopesText,
} from './scopes';
export type { Scope, WantedScope } from './scopes';
