/** Every scope a key can hold; `*` and `<resource>:*` hold all of theirs. */
export const KNOWN_SCOPES = [
  'services:read',
  'services:execute',
  'admin:read',
  'admin:write',
] as const;
export type Scope = (typeof KNOWN_SCOPES)[number];

export const SCOPE_TEMPLATES: Record<string, string[]> = {
  read_only: ['services:read'],
  standard: ['services:read', 'services:execute'],
  admin: ['*'],
};

/** The template of a new key that names neither scopes nor a template. */
export const DEFAULT_SCOPE_TEMPLATE = 'standard';

const RESOURCES = new Set(KNOWN_SCOPES.map((s) => s.split(':')[0]));

/** A scope that allows calling one tool only: `services:execute:<tool>` (a registered tool's name). */
export const TOOL_SCOPE_PREFIX = 'services:execute:';

export function toolScope(tool: string): `services:execute:${string}` {
  return `${TOOL_SCOPE_PREFIX}${tool}`;
}

/** `services:execute:@<source>`: every tool of a source (src/sources/). */
export function sourceScope(source: string): `services:execute:@${string}` {
  return `${TOOL_SCOPE_PREFIX}@${source}`;
}

/** The scopes of which a call of a tool needs one: its own, and its source's for a source's tool. */
export function toolScopes(tool: { name: string; source?: string }): WantedScope[] {
  return tool.source === undefined
    ? [toolScope(tool.name)]
    : [toolScope(tool.name), sourceScope(tool.source)];
}

/**
 * What a route asks of a caller that may call some tool (`/mcp`, discovery): `services:execute`, or
 * any `services:execute:<tool>`. A route's requirement only: no key holds it.
 */
export const ANY_TOOL_SCOPE = 'services:execute:*';

/** A scope a route or a call may ask for. */
export type WantedScope = Scope | `services:execute:${string}`;

/**
 * The tools whose per-tool scopes can be granted (`services:execute:<tool>`): the registry's, where
 * the process has tools (its ToolsModule provides it).
 */
export abstract class ToolCatalog {
  abstract names(): readonly string[];
  /** What each tool costs where a plan does not price it (its `cost`): what grants compare. */
  abstract costs(): ReadonlyMap<string, number>;
}

/** What each scope allows, in words, for a newcomer: `keys create --help` lists them. */
export const SCOPE_MEANINGS: Record<Scope, string> = {
  'services:read': 'discovery (GET /api/v1/services)',
  'services:execute': 'every tool call, over REST and MCP (and discovery)',
  'admin:read': "listing and showing keys, any key's usage, the audit trail",
  'admin:write': 'creating, changing, rotating and revoking keys',
};

/** The wildcards a key may hold besides the known scopes: each resource's, then `*`. */
export const WILDCARD_SCOPES = [...[...RESOURCES].map((resource) => `${resource}:*`), '*'];

/** The valid scopes and templates in one sentence, for the error of an unknown scope. */
export function validScopesText(tools: readonly string[] = []): string {
  const templates = Object.entries(SCOPE_TEMPLATES).map(
    ([name, scopes]) => `${name} (${scopes.join(', ')})`,
  );
  const scopes = [...KNOWN_SCOPES, ...[...tools].sort().map(toolScope), ...WILDCARD_SCOPES];
  return `valid scopes: ${scopes.join(', ')}; templates: ${templates.join(', ')}`;
}

/** A scope a key can hold: a known one, a wildcard, or `services:execute:<tool>` of a tool of `tools`. */
export function isValidScope(scope: string, tools: readonly string[] = []): boolean {
  if (scope === '*' || (KNOWN_SCOPES as readonly string[]).includes(scope)) return true;
  if (scope.startsWith(TOOL_SCOPE_PREFIX)) {
    return tools.includes(scope.slice(TOOL_SCOPE_PREFIX.length));
  }
  const [resource, action] = scope.split(':');
  return action === '*' && RESOURCES.has(resource) && scope.split(':').length === 2;
}

/**
 * Whether one held scope covers a wanted scope (itself possibly a wildcard): `*` and
 * `<resource>:*` cover their resource's, `services:execute` covers every `services:execute:<tool>`,
 * and ANY_TOOL_SCOPE is covered by anything that allows some tool call.
 */
export function scopeCovers(held: string, wanted: string): boolean {
  if (held === '*' || held === wanted) return true;
  if (wanted === '*') return false;
  if (wanted === ANY_TOOL_SCOPE) {
    return (
      held === 'services:*' || held === 'services:execute' || held.startsWith(TOOL_SCOPE_PREFIX)
    );
  }
  if (held.endsWith(':*')) return wanted.startsWith(held.slice(0, -1));
  return held === 'services:execute' && wanted.startsWith(TOOL_SCOPE_PREFIX);
}

export function hasScope(held: readonly string[], wanted: string): boolean {
  return held.some((h) => scopeCovers(h, wanted));
}

/** True when the key holds at least one of the wanted scopes (an empty list asks for none). */
export function hasAnyScope(held: readonly string[], wanted: readonly string[]): boolean {
  return wanted.length === 0 || wanted.some((w) => hasScope(held, w));
}
