/** The longest `wait` a client may ask for, in seconds. */
export const MAX_WAIT_SECONDS = 60;

/** What a request's `Prefer` header asks of a tool call (RFC 7240). */
export interface Preferences {
  /** `respond-async`: run the call in the background, answer 202 with where to follow it. */
  respondAsync: boolean;
  /** `wait=N`: wait up to N seconds (at most 60) for the call to end before answering 202; ms. */
  waitMs: number;
}

/**
 * The preferences of `Prefer` headers (several headers, or one with several comma-separated
 * preferences; names in any case, as RFC 7240 §2 says); what the service does not know, or cannot
 * read, is ignored, as a preference may be.
 */
export function preferences(header: string | string[] | undefined): Preferences {
  const found: Preferences = { respondAsync: false, waitMs: 0 };
  if (header === undefined) return found;
  const values = Array.isArray(header) ? header : [header];
  for (const value of values) {
    for (const preference of value.split(',')) {
      const [token] = preference.split(';');
      const eq = token.indexOf('=');
      const name = (eq < 0 ? token : token.slice(0, eq)).trim().toLowerCase();
      const raw =
        eq < 0
          ? ''
          : token
              .slice(eq + 1)
              .trim()
              .replace(/^"(.*)"$/, '$1');
      if (name === 'respond-async') found.respondAsync = true;
      if (name === 'wait' && /^\d{1,9}$/.test(raw)) {
        found.waitMs = Math.min(Number(raw), MAX_WAIT_SECONDS) * 1000;
      }
    }
  }
  return found;
}
