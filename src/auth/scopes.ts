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
export function validScopesText(): string {
  const templates = Object.entries(SCOPE_TEMPLATES).map(
    ([name, scopes]) => `${name} (${scopes.join(', ')})`,
  );
  return `valid scopes: ${[...KNOWN_SCOPES, ...WILDCARD_SCOPES].join(', ')}; templates: ${templates.join(', ')}`;
}

export function isValidScope(scope: string): boolean {
  if (scope === '*' || (KNOWN_SCOPES as readonly string[]).includes(scope)) return true;
  const [resource, action] = scope.split(':');
  return action === '*' && RESOURCES.has(resource) && scope.split(':').length === 2;
}

/** Whether one held scope covers a wanted scope (itself possibly a wildcard). */
export function scopeCovers(held: string, wanted: string): boolean {
  if (held === '*' || held === wanted) return true;
  if (wanted === '*') return false;
  if (held.endsWith(':*')) return wanted.startsWith(held.slice(0, -1));
  return false;
}

export function hasScope(held: readonly string[], wanted: string): boolean {
  return held.some((h) => scopeCovers(h, wanted));
}

/** True when the key holds at least one of the wanted scopes (an empty list asks for none). */
export function hasAnyScope(held: readonly string[], wanted: readonly string[]): boolean {
  return wanted.length === 0 || wanted.some((w) => hasScope(held, w));
}
