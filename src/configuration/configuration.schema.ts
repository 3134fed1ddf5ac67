import { parseTyped } from './coercion';
import {
  CONFIG_KEY,
  ConfigKeySpec,
  ConfigScalar,
  ConfigSectionDefinition,
  DefaultsContext,
  ENV_PREFIX,
  KEY_SEGMENT,
  MAX_KEY_LENGTH,
  RESERVED_SEGMENTS,
} from './configuration.types';

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
