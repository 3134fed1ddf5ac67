/** The service's scope rules (src/kernel/auth/scopes.ts), to show only what a key may do. */
export function scopeCovers(held: string, wanted: string): boolean {
  if (held === '*' || held === wanted) return true;
  if (wanted === '*') return false;
  if (held.endsWith(':*')) return wanted.startsWith(held.slice(0, -1));
  return held === 'services:execute' && wanted.startsWith('services:execute:');
}

export function holds(scopes: readonly string[], wanted: string): boolean {
  return scopes.some((held) => scopeCovers(held, wanted));
}

/** Whether a key may call the tool at all (its own scope, or every tool's). */
export function mayCall(scopes: readonly string[], tool: string): boolean {
  return holds(scopes, `services:execute:${tool}`);
}

/** Whether a key holds any tool scope. */
export function holdsAnyToolScope(scopes: readonly string[]): boolean {
  return scopes.some(
    (held) =>
      held === '*' ||
      held === 'services:*' ||
      held === 'services:execute' ||
      held.startsWith('services:execute:'),
  );
}
