import type { Environment } from '../kernel/settings/settings';
import { isPlainObject } from '../kernel/common/plain-object';
import { parseRaw, parseTyped } from './coercion';
import { ConfigScalar, ENV_PREFIX } from './configuration.types';
import { ConfigSchema, isWellFormedKey } from './configuration.schema';

/** Where an effective value comes from, lowest first. */
export type Layer = 'default' | 'file' | 'override' | 'env';

/** A bad CONFIG_FILE or environment: start-up stops with this message. */
export class ConfigSourceError extends Error {}

export interface EnvPin {
  value: ConfigScalar;
  /** The variable that set it: `PORT`, `APP__LOGGING__LEVEL`. */
  variable: string;
}

/** A stored override the schema does not accept (any more): ignored, reported by `doctor`. */
export interface InvalidOverride {
  key: string;
  reason: string;
}

/** The operator's section of CONFIG_FILE (src/kernel/settings/settings.ts reads it); not part of the tree. */
const OPERATOR_SECTIONS = new Set(['limits', 'tools', 'sources']);

function walkFile(
  node: Record<string, unknown>,
  path: string[],
  schema: ConfigSchema,
  out: Map<string, ConfigScalar>,
  fail: (message: string) => never,
): void {
  for (const [segment, value] of Object.entries(node)) {
    if (path.length === 0 && OPERATOR_SECTIONS.has(segment)) continue;
    const key = [...path, segment].join('.');
    const entry = isWellFormedKey(key) ? schema.key(key) : undefined;
    if (entry) {
      const checked = parseTyped(key, entry.spec, value);
      if (!checked.ok) fail(checked.rejection.msg);
      out.set(key, checked.value);
    } else if (isWellFormedKey(key) && schema.isSection(key)) {
      // An empty section (`server:` with every key commented out) is YAML null.
      if (value === null) continue;
      if (!isPlainObject(value)) fail(`${key} is a section: give it a mapping of its keys`);
      walkFile(value, [...path, segment], schema, out, fail);
    } else {
      fail(`unknown configuration key '${key}'`);
    }
  }
}

/**
 * The CONFIG_FILE layer, from the document the settings parsed: a YAML mapping shaped like the tree;
 * every key in it must be known.
 */
export function readConfigFile(
  file: string | undefined,
  doc: unknown,
  schema: ConfigSchema,
): Map<string, ConfigScalar> {
  const out = new Map<string, ConfigScalar>();
  if (!file) return out;
  const fail = (message: string): never => {
    throw new ConfigSourceError(`Invalid CONFIG_FILE ${file}: ${message}`);
  };
  if (doc === null || doc === undefined) return out;
  if (!isPlainObject(doc)) fail('the document must be a mapping');
  walkFile(doc as Record<string, unknown>, [], schema, out, fail);
  return out;
}

/**
 * The environment layer: `APP__<SECTION>__<KEY>` for any key, plus short aliases (`PORT`, `HOST`).
 * An empty variable counts as unset. An `APP__` variable that names no key stops start-up, so a typo
 * cannot be silently ignored.
 */
export function readEnvironment(env: Environment, schema: ConfigSchema): Map<string, EnvPin> {
  const out = new Map<string, EnvPin>();
  for (const [variable, raw] of Object.entries(env)) {
    if (raw === undefined || raw === '') continue;
    const entry = schema.keyForEnv(variable);
    if (!entry) {
      if (variable.startsWith(ENV_PREFIX)) {
        throw new ConfigSourceError(`Invalid environment: ${variable} names no configuration key`);
      }
      continue;
    }
    const earlier = out.get(entry.key);
    if (earlier) {
      throw new ConfigSourceError(
        `Invalid environment: ${earlier.variable} and ${variable} both set ${entry.key}; set one`,
      );
    }
    const checked = parseRaw(entry.key, entry.spec, raw);
    if (!checked.ok) {
      throw new ConfigSourceError(`Invalid environment: ${variable}: ${checked.rejection.msg}`);
    }
    out.set(entry.key, { value: checked.value, variable });
  }
  return out;
}

/** Splits the stored overrides into those the schema accepts and those it does not. */
export function sortOverrides(
  stored: Record<string, unknown>,
  schema: ConfigSchema,
): { valid: Map<string, ConfigScalar>; invalid: InvalidOverride[] } {
  const valid = new Map<string, ConfigScalar>();
  const invalid: InvalidOverride[] = [];
  for (const [key, value] of Object.entries(stored)) {
    const entry = isWellFormedKey(key) ? schema.key(key) : undefined;
    if (!entry) {
      invalid.push({ key, reason: `'${key}' is not a configuration key` });
      continue;
    }
    const checked = parseTyped(key, entry.spec, value);
    if (checked.ok) valid.set(key, checked.value);
    else invalid.push({ key, reason: checked.rejection.msg });
  }
  return { valid, invalid };
}
