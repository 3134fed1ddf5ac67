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
  let query = `limit=${limit}&cursor=${cursor}`;
  for (const [name, value] of Object.entries(filters)) {
    if (value !== undefined) query += `&${name}=${encodeURIComponent(value)}`;
  }
  return `<${path}?${query}>; rel="next"`;
}
