/**
 * The auth feature's public entry: who calls (a key, a principal's access token, a run's token),
 * as the checks of a call ask it. What every feature shares of auth (scopes, challenges, the route
 * decorators) is the kernel's: src/kernel/auth/.
 */
export { AuthModule } from './auth.module';
export { Authentication } from './authentication';
export type { Authenticated, Credentials } from './authentication';
