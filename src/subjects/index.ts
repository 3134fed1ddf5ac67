/**
 * The subjects feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { bearerToken } from './api-key';
export { keyStatus, toView } from './api-key.view';
export {
  ApiKeyView,
  CreateApiKeyInput,
  ApiExternalIdQuery,
  ExternalIdField,
  CreatedApiKey,
  MAX_GRACE_SECONDS,
  Me,
  OAuthMe,
  RevokedApiKey,
  RotateApiKeyInput,
  UpdateApiKeyInput,
} from './api-keys.dto';
export { KeysService } from './keys.service';
export { AuthFailureLimiter } from './auth-failure.limiter';
export { CurrentCaller } from './caller';
export type { ApiRequest, AuthenticatedPrincipal, Caller } from './caller';
export { escalates, mayManage } from './escalation';
export { InitialKeyBootstrap, INITIAL_KEY_FILE } from './initial-key';
export { decodeCursor, encodeCursor } from './key-cursor';
export {
  KEY_NOT_FOUND,
  KEY_REVOKED,
  KeyRequestError,
  badRequest,
  checkExternalId,
  isExternalId,
} from './key-request';
export type { KeyUpdate } from './key-request';
export { KeySearch } from './key-search';
export type { KeyFilter } from './key-search';
export { KeyStore, mayBeCached } from './key.store';
export type { ApiKeyRecord, KeyPosition } from './key.store';
export { PrincipalStore, scopeUnion } from './principal.store';
export type {
  NewPrincipalRecord,
  PrincipalChanges,
  PrincipalPosition,
  PrincipalRecord,
} from './principal.store';
export { SubjectsModule } from './subjects.module';
export { MAX_SUBJECT_PAGE, SubjectsService } from './subjects.service';
export type { Holdings, SubjectKind } from './subjects.service';
export { KEYS_PATH, KeySubjects } from './key.subjects';
