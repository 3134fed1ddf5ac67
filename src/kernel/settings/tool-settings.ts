import { SettingsError } from './settings.error';

/** What an operator may set per tool in CONFIG_FILE's `tools:` section (never through config_set). */
export interface ToolOverrides {
  timeoutMs?: number;
  concurrency?: number;
  queue?: number;
  /** The fraction of the tool's slots and queue one caller may hold while others want the tool. */
  perCallerShare?: number;
}

/**
 * The section's fields, as written in the file: whole numbers from `min`, or a fraction of
 * (0, 1].
 */
const FIELDS = {
  timeout_ms: { name: 'timeoutMs', min: 1 },
  concurrency: { name: 'concurrency', min: 1 },
  queue: { name: 'queue', min: 0 },
  per_caller_share: { name: 'perCallerShare', fraction: true },
} as const;

/**
 * CONFIG_FILE's `tools:` section: per tool, `timeout_ms`, `concurrency`, `queue` and
 * `per_caller_share`, overriding what the tool declares (or the default). An operator's section,
 * like `limits:`: not part of the configuration tree the `config_*` tools read and set. Whether
 * each name is a tool is checked once the tools are known (ToolRegistry): a typo stops the start
 * instead of being ignored.
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
      own[known.name] = checked(`tools.${tool}.${field}`, known, raw);
    }
    overrides[tool] = own;
  }
  return overrides;
}

/** A field's value as the file gives it, or the one line that stops the start. */
function checked(where: string, field: { fraction: true } | { min: number }, raw: unknown): number {
  if ('fraction' in field) {
    if (typeof raw !== 'number' || !(raw > 0 && raw <= 1)) {
      throw new SettingsError(
        `Invalid CONFIG_FILE: ${where} must be a number greater than 0 and at most 1, got ${JSON.stringify(raw) ?? String(raw)}`,
      );
    }
    return raw;
  }
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < field.min) {
    throw new SettingsError(`Invalid CONFIG_FILE: ${where} must be a whole number >= ${field.min}`);
  }
  return raw;
}
