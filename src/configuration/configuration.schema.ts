import { isIP } from 'node:net';
import { join } from 'node:path';
import { LOG_LEVELS } from '../logging/log-control';
import { parseTyped } from './coercion';

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
const RESERVED_SEGMENTS = new Set([
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

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** The service's own sections. Other modules add theirs with `ConfigurationModule.forFeature()`. */
export const CORE_SECTIONS: ConfigSectionDefinition[] = [
  {
    name: 'llm_config',
    description: 'The language-model client used by tools.',
    keys: {
      cache_enabled: ConfigKey.boolean({
        default: true,
        description: 'Cache model answers on disk.',
      }),
      cache_dir: ConfigKey.string({
        default: ({ dataDir }) => join(dataDir, 'cache'),
        minLength: 1,
        maxLength: 1024,
        insideDataDir: true,
        description:
          'Directory of the answer cache; default <DATA_DIR>/cache. Through config_set: a path inside DATA_DIR.',
      }),
      api_key: ConfigKey.string({
        default: '',
        secret: true,
        maxLength: MAX_VALUE_LENGTH,
        description: 'Credential for the model provider; shown as "********" once set.',
      }),
    },
  },
  {
    name: 'logging',
    description: 'The process logger; both keys apply at once.',
    keys: {
      level: ConfigKey.string({
        default: 'info',
        choices: LOG_LEVELS,
        caseInsensitive: true,
        description: 'Lowest level written: trace, debug, info, warn, error or fatal.',
      }),
      verbose: ConfigKey.boolean({
        default: false,
        description: 'One access line per request.',
      }),
    },
  },
  {
    name: 'server',
    description: 'Where the HTTP server listens; read at start-up.',
    keys: {
      host: ConfigKey.string({
        default: '0.0.0.0',
        restart: true,
        envAlias: 'HOST',
        check: {
          test: (v) => isIP(v) !== 0 || HOST_NAME.test(v),
          expects: 'a host name or IP address',
        },
        description: 'Listening address.',
      }),
      port: ConfigKey.integer({
        default: 8000,
        min: 1,
        max: 65535,
        restart: true,
        envAlias: 'PORT',
        description: 'Listening port.',
      }),
    },
  },
];

/** One key of the assembled schema. */
export interface SchemaKey {
  key: string;
  section: string;
  spec: ConfigKeySpec;
  /** The default, resolved against the settings. */
  default: ConfigScalar;
  /** The environment variables that pin it, the convention's first. */
  envNames: string[];
}

export class ConfigSchemaError extends Error {}

/** `logging.level` -> `APP__LOGGING__LEVEL`. */
export function envNameOf(key: string): string {
  return (
    ENV_PREFIX +
    key
      .split('.')
      .map((s) => s.toUpperCase())
      .join('__')
  );
}

export function isWellFormedKey(key: string): boolean {
  return (
    key.length <= MAX_KEY_LENGTH &&
    CONFIG_KEY.test(key) &&
    !key.split('.').some((s) => RESERVED_SEGMENTS.has(s))
  );
}

/**
 * Every key of every section, checked once: well-formed names, no key that is also a section, no two
 * keys pinned by one environment variable. Lookups go through Maps, never through a plain object
 * indexed by client input.
 */
export class ConfigSchema {
  private readonly byKey = new Map<string, SchemaKey>();
  /** Section prefix -> the keys below it, in declaration order. */
  private readonly sections = new Map<string, string[]>();
  private readonly byEnvName = new Map<string, SchemaKey>();

  constructor(definitions: readonly ConfigSectionDefinition[], context: DefaultsContext) {
    const names = new Set<string>();
    for (const section of definitions) {
      if (!KEY_SEGMENT.test(section.name) || RESERVED_SEGMENTS.has(section.name)) {
        throw new ConfigSchemaError(
          `Configuration section '${section.name}' must be one segment matching [a-z][a-z0-9_]*`,
        );
      }
      if (names.has(section.name)) {
        throw new ConfigSchemaError(`Two configuration sections are named '${section.name}'`);
      }
      names.add(section.name);
      for (const [relative, spec] of Object.entries(section.keys)) {
        this.add(section.name, `${section.name}.${relative}`, spec, context);
      }
    }
    for (const key of this.byKey.keys()) {
      if (this.sections.has(key)) {
        throw new ConfigSchemaError(`Configuration key '${key}' is also a section`);
      }
    }
  }

  private add(section: string, key: string, spec: ConfigKeySpec, context: DefaultsContext) {
    if (!isWellFormedKey(key)) {
      throw new ConfigSchemaError(
        `Configuration key '${key}' must match [a-z][a-z0-9_]* per segment, avoid reserved names and fit in ${MAX_KEY_LENGTH} characters`,
      );
    }
    if (this.byKey.has(key))
      throw new ConfigSchemaError(`Configuration key '${key}' is declared twice`);
    const resolvedDefault =
      typeof spec.default === 'function' ? spec.default(context) : spec.default;
    const checked = parseTyped(key, spec, resolvedDefault);
    if (!checked.ok) {
      throw new ConfigSchemaError(`Default of '${key}' is invalid: ${checked.rejection.msg}`);
    }
    const entry: SchemaKey = {
      key,
      section,
      spec,
      default: checked.value,
      envNames: [envNameOf(key), ...(spec.envAlias ? [spec.envAlias] : [])],
    };
    for (const name of entry.envNames) {
      const other = this.byEnvName.get(name);
      if (other) {
        throw new ConfigSchemaError(
          `Configuration keys '${other.key}' and '${key}' would both be set by ${name}`,
        );
      }
      this.byEnvName.set(name, entry);
    }
    this.byKey.set(key, entry);
    const segments = key.split('.');
    for (let i = 1; i < segments.length; i++) {
      const prefix = segments.slice(0, i).join('.');
      const below = this.sections.get(prefix) ?? [];
      below.push(key);
      this.sections.set(prefix, below);
    }
  }

  /** The key's schema entry; undefined for sections, unknown and malformed keys. */
  key(key: string): SchemaKey | undefined {
    return this.byKey.get(key);
  }

  isSection(key: string): boolean {
    return this.sections.has(key);
  }

  /** The keys below a section (all of them for no section). */
  keysUnder(section?: string): SchemaKey[] {
    const keys =
      section === undefined ? [...this.byKey.keys()] : (this.sections.get(section) ?? []);
    return keys.map((k) => this.byKey.get(k) as SchemaKey);
  }

  keys(): SchemaKey[] {
    return [...this.byKey.values()];
  }

  /** The key an environment variable pins, if any. */
  keyForEnv(name: string): SchemaKey | undefined {
    return this.byEnvName.get(name);
  }
}

/**
 * A section registered by a module (see `ConfigurationModule.forFeature`); the configuration service finds
 * every provider of this class at start-up.
 */
export class ConfigSection {
  constructor(readonly definition: ConfigSectionDefinition) {}
}
