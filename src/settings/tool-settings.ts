import { SettingsError } from './settings.error';

/** What an operator may set per tool in CONFIG_FILE's `tools:` section (never through config_set). */
export interface ToolOverrides {
  timeoutMs?: number;
  concurrency?: number;
  queue?: number;
}

/** The section's fields, as written in the file, and the least each takes. */
const FIELDS = {
  timeout_ms: { name: 'timeoutMs', min: 1 },
  concurrency: { name: 'concurrency', min: 1 },
  queue: { name: 'queue', min: 0 },
} as const;

/**
 * CONFIG_FILE's `tools:` section: per tool, `timeout_ms`, `concurrency` and `queue`, overriding
 * what the tool declares. An operator's section, like `limits:`: not part of the configuration
 * tree the `config_*` tools read and set. Whether each name is a tool is checked once the tools
 * are known (ToolRegistry): a typo stops the start instead of being ignored.
 */
export function toolOverridesFromFile(
  configFile: string | undefined,
  doc: unknown,
): Record<string, ToolOverrides> {
  const overrides = Object.create(null) as Record<string, ToolOverrides>;
  if (!doc || typeof doc !== 'object' || !('tools' in doc)) return overrides;
  const section = doc.tools;
  if (section === null || typeof section !== 'object' || Array.isArray(section)) {
    throw new SettingsError(`Invalid CONFIG_FILE ${configFile}: 'tools' must be a mapping`);
  }
  for (const [tool, value] of Object.entries(section as Record<string, unknown>)) {
    if (!/^[a-z][a-z0-9_]*$/.test(tool) || !value || typeof value !== 'object') {
      throw new SettingsError(`Invalid CONFIG_FILE: tools.${tool} must be a mapping`);
    }
    const own: ToolOverrides = {};
    for (const [field, raw] of Object.entries(value as Record<string, unknown>)) {
      const known = Object.hasOwn(FIELDS, field) ? FIELDS[field as keyof typeof FIELDS] : undefined;
      if (!known) {
        throw new SettingsError(
          `Invalid CONFIG_FILE: tools.${tool}.${field} is not a setting (expected ${Object.keys(FIELDS).join(', ')})`,
        );
      }
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < known.min) {
        throw new SettingsError(
          `Invalid CONFIG_FILE: tools.${tool}.${field} must be a whole number >= ${known.min}`,
        );
      }
      own[known.name] = raw;
    }
    overrides[tool] = own;
  }
  return overrides;
}
