/**
 * The configuration feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { ConfigurationModule } from './configuration.module';
export { ConfigurationService } from './configuration.service';
export { ConfigSourceError, readConfigFile } from './configuration.sources';
export { ConfigKey, MAX_KEY_LENGTH, MAX_VALUE_LENGTH } from './configuration.types';
export type { ConfigScalar, ConfigTree, ConfigValue } from './configuration.types';
export type { LogLevel } from './core-sections';
export { OverrideStore } from './override.store';
