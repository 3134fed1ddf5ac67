/** The shapes of the configuration tree: keys, their specs and sections. Data only. */

/** A configuration key, and each of its dot-separated segments. */
export const KEY_SEGMENT = /^[a-z][a-z0-9_]*$/;
export const CONFIG_KEY = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
/** The longest key a client may send. */
export const MAX_KEY_LENGTH = 200;
/** The longest value `config_set` takes (a path, a token): anything longer is a mistake. */
export const MAX_VALUE_LENGTH = 4096;
/** Prefix of the environment convention that reaches any key: `APP__LOGGING__LEVEL`. */
export const ENV_PREFIX = 'APP__';

/**
 * Names that match the segment pattern but are properties of every object: never a section or key,
 * so nothing a client sends can resolve to an object's prototype chain.
 */
export const RESERVED_SEGMENTS = new Set([
  'constructor',
  'prototype',
  'hasownproperty',
  'isprototypeof',
  'propertyisenumerable',
  'tostring',
  'tolocalestring',
  'valueof',
]);

export type ConfigScalar = boolean | number | string;
export interface ConfigTree {
  [segment: string]: ConfigScalar | ConfigTree;
}
export type ConfigValue = ConfigScalar | ConfigTree;

/** What a default may depend on: the operator's settings, known before the tree is built. */
export interface DefaultsContext {
  dataDir: string;
}

interface BaseKey {
  description: string;
  /** Shown as "********" by the tools once set. */
  secret?: boolean;
  /** Read once at start-up (the listening address): a change applies after a restart. */
  restart?: boolean;
  /** A short environment variable that pins this key besides `APP__<SECTION>__<KEY>` (`PORT`). */
  envAlias?: string;
}

export interface BooleanKey extends BaseKey {
  type: 'boolean';
  default: boolean;
}

export interface IntegerKey extends BaseKey {
  type: 'integer';
  default: number;
  min?: number;
  max?: number;
}

export interface FloatKey extends BaseKey {
  type: 'float';
  default: number;
  min?: number;
  max?: number;
}

export interface StringKey extends BaseKey {
  type: 'string';
  default: string | ((context: DefaultsContext) => string);
  /** Allowed values (stored lower case when `caseInsensitive`). */
  choices?: readonly string[];
  caseInsensitive?: boolean;
  minLength?: number;
  maxLength?: number;
  /** A check beyond length and choices, with the words that say what it expects. */
  check?: { test: (value: string) => boolean; expects: string };
  /**
   * A path that `config_set` may only point inside DATA_DIR: a key holder must not make the service
   * create or write directories elsewhere. The environment and CONFIG_FILE may name any path.
   */
  insideDataDir?: boolean;
}

export type ConfigKeySpec = BooleanKey | IntegerKey | FloatKey | StringKey;

/**
 * A section of the tree contributed by one module: `name` is its top-level segment and `keys` its
 * keys relative to it (`cache_enabled`, or deeper: `retry.max_attempts`).
 */
export interface ConfigSectionDefinition {
  name: string;
  description?: string;
  keys: Record<string, ConfigKeySpec>;
}

/** Builders that read like the schema they declare: `ConfigKey.integer({...})`. */
export const ConfigKey = {
  boolean: (spec: Omit<BooleanKey, 'type'>): BooleanKey => ({ type: 'boolean', ...spec }),
  integer: (spec: Omit<IntegerKey, 'type'>): IntegerKey => ({ type: 'integer', ...spec }),
  float: (spec: Omit<FloatKey, 'type'>): FloatKey => ({ type: 'float', ...spec }),
  string: (spec: Omit<StringKey, 'type'>): StringKey => ({ type: 'string', ...spec }),
};
