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

const RESOURCES = new Set(KNOWN_SCOPES.map((s) => s.split(':')[0]));

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
