import type { ConfigScalar, ConfigTree } from './configuration.types';
import type { SchemaKey } from './configuration.schema';
import type { EnvPin, InvalidOverride, Layer } from './configuration.sources';

/** How a secret that is set is shown. */
export const REDACTED = '********';

/** One key's effective value and the layer it comes from. */
export interface ResolvedValue {
  value: ConfigScalar;
  layer: Layer;
  /** The environment variable, when the environment pins the key. */
  variable?: string;
}

/** One consistent read of every layer: the stored overrides are read once. */
export interface ConfigSnapshot {
  values: ReadonlyMap<string, ResolvedValue>;
  /** The stored overrides the schema accepts (some may be shadowed by the environment). */
  overrides: ReadonlyMap<string, ConfigScalar>;
  invalidOverrides: InvalidOverride[];
}

/** A restart-requiring key whose configured value differs from the one the process runs with. */
export interface PendingRestart {
  key: string;
  running: ConfigScalar;
  configured: ConfigScalar;
}

export function resolve(
  entry: SchemaKey,
  file: ReadonlyMap<string, ConfigScalar>,
  overrides: ReadonlyMap<string, ConfigScalar>,
  env: ReadonlyMap<string, EnvPin>,
): ResolvedValue {
  const pin = env.get(entry.key);
  if (pin) return { value: pin.value, layer: 'env', variable: pin.variable };
  const override = overrides.get(entry.key);
  if (override !== undefined) return { value: override, layer: 'override' };
  const fromFile = file.get(entry.key);
  if (fromFile !== undefined) return { value: fromFile, layer: 'file' };
  return { value: entry.default, layer: 'default' };
}

export function redactValue(entry: SchemaKey, value: ConfigScalar): ConfigScalar {
  return entry.spec.secret && value !== '' ? REDACTED : value;
}

/**
 * The nested tree of the given keys, below `prefix`. Nodes have no prototype, so no key can ever
 * land on `Object.prototype`.
 */
export function buildTree(
  keys: SchemaKey[],
  snapshot: ConfigSnapshot,
  prefix: string,
  redact: boolean,
): ConfigTree {
  const root = Object.create(null) as ConfigTree;
  const skip = prefix ? prefix.split('.').length : 0;
  for (const entry of keys) {
    const segments = entry.key.split('.').slice(skip);
    const last = segments.pop() as string;
    let node = root;
    for (const segment of segments) {
      if (!Object.hasOwn(node, segment)) node[segment] = Object.create(null) as ConfigTree;
      node = node[segment] as ConfigTree;
    }
    const value = (snapshot.values.get(entry.key) as ResolvedValue).value;
    node[last] = redact ? redactValue(entry, value) : value;
  }
  return root;
}
