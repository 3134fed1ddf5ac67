import type { ReplyControl } from './plumbing';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An opaque cursor of a list ordered by time, then id: where its next page starts. */
export function encodePosition(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

/** The `[time, id]` a cursor names, or null for anything the service would not have issued. */
export function decodePosition(raw: unknown, idPattern: RegExp): [at: string, id: string] | null {
  if (typeof raw !== 'string' || raw.length > 200 || !/^[A-Za-z0-9_-]+$/.test(raw)) return null;
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [at, id] = value as unknown[];
    if (typeof at !== 'string' || !ISO.test(at)) return null;
    if (typeof id !== 'string' || !idPattern.test(id)) return null;
    return [at, id];
  } catch {
    return null;
  }
}

/** The relative `Link` to the next page, with the filters the list was asked with (those set). */
export function nextLink(
  path: string,
  limit: number,
  cursor: string,
  filters: Record<string, string | undefined> = {},
): string {
  let query = `limit=${limit}&cursor=${encodeURIComponent(cursor)}`;
  for (const [name, value] of Object.entries(filters)) {
    if (value !== undefined) query += `&${name}=${encodeURIComponent(value)}`;
  }
  return `<${path}?${query}>; rel="next"`;
}

/** Where a list's next page is: its path, its page size, and the filters it was asked with. */
export interface PageLink {
  path: string;
  limit: number;
  filters?: Record<string, string | undefined>;
}

/**
 * The one way a page of any list says where the next one starts: while there is one, the `Link`
 * to it (`rel="next"`, its cursor and filters) set on `res`; and the cursor itself, null on the
 * last page, which a list whose body is an object carries as `next_cursor`.
 */
export function nextPage(
  res: ReplyControl,
  cursor: string | null | undefined,
  link: PageLink,
): string | null {
  if (cursor === null || cursor === undefined) return null;
  res.header('Link', nextLink(link.path, link.limit, cursor, link.filters));
  return cursor;
}

/**
 * The cursor a page was asked from: `cursor`, or the deprecated name the list took before every
 * list took `cursor` (`before`); with the name it came by, for a 400 to point at.
 */
export function pageCursor(
  query: Record<string, unknown>,
  alias?: string,
): { name: string; value: unknown } | undefined {
  if (query.cursor !== undefined) return { name: 'cursor', value: query.cursor };
  if (alias !== undefined && query[alias] !== undefined) {
    return { name: alias, value: query[alias] };
  }
  return undefined;
}

/** The text filters of `names` a list was asked with, for its `Link` (those given as one value). */
export function pageFilters(
  query: Record<string, unknown>,
  names: readonly string[],
): Record<string, string | undefined> {
  const filters: Record<string, string | undefined> = {};
  for (const name of names) {
    const value = query[name];
    if (typeof value === 'string') filters[name] = value;
  }
  return filters;
}

/**
 * A page of a list read whole (a short one, bounded by a cap: webhook endpoints), ordered by
 * (created_at, id): the `limit` records after the position `after` names, and the cursor of the
 * next page, or null.
 */
export function pageOfAll<T extends { created_at: string; id: string }>(
  all: readonly T[],
  after: [at: string, id: string] | undefined,
  limit: number,
): { page: T[]; next: string | null } {
  const key = (record: T) => [record.created_at, record.id].join('\u0000');
  const from = after === undefined ? '' : after.join('\u0000');
  const rest = [...all].sort((a, b) => (key(a) < key(b) ? -1 : 1)).filter((r) => key(r) > from);
  const page = rest.slice(0, limit);
  const last = page[page.length - 1];
  return { page, next: rest.length > limit ? encodePosition(last.created_at, last.id) : null };
}
