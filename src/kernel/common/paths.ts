import { isAbsolute, relative, resolve } from 'node:path';

/** Whether `path` (relative paths read against `dir`) lies strictly inside `dir`, by its text. */
export function liesInside(dir: string, path: string): boolean {
  const inside = relative(dir, resolve(dir, path));
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
}
