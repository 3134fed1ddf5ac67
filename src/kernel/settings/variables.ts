import * as z from 'zod/v4';

/** A variable's raw value: absent or empty reads as unset. */
export const unset = (raw: string | undefined): raw is undefined | '' =>
  raw === undefined || raw === '';

/** The entries of a comma-separated variable: trimmed, empty ones dropped (none when unset). */
export function commaEntries(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** A refusal of the variable's value, in the one-line form (the variable's name is added before it). */
export function refuse(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

/**
 * The normal form (`scheme://host[:port]`, lower case, default port dropped) of an origin, from an
 * `Origin` header or the setting; undefined for anything else (a path, `null`, garbage).
 */
export function originOf(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  return bare && url.origin !== 'null' ? url.origin : undefined;
}
