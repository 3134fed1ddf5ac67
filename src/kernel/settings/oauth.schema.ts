import * as z from 'zod/v4';
import { commaEntries, originOf, refuse, unset } from './variables';

/** The OAuth variables' types (docs/oauth.md), part of EnvironmentSchema. */

/**
 * `PUBLIC_URL`: the service's external base URL, as clients reach it (an origin: scheme, host and
 * port, no path), in its normal form: the protected resources of OAuth are named from it.
 */
export const publicUrl = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (unset(raw)) return undefined;
    const trimmed = raw.trim().replace(/\/+$/, '');
    const origin = originOf(trimmed);
    if (origin === undefined || !/^https?:/.test(origin)) {
      return refuse(
        ctx,
        `must be the service's external origin, like https://tools.example.com (no path), got '${raw}'`,
      );
    }
    return origin;
  });

/** `OAUTH_ISSUERS`: issuer identifiers (http or https URLs), kept as written: `iss` must equal one. */
export const issuers = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const entries = commaEntries(raw);
    for (const entry of entries) {
      let url: URL | undefined;
      try {
        url = new URL(entry);
      } catch {
        url = undefined;
      }
      if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username) {
        return refuse(
          ctx,
          `entries must be issuer URLs like https://login.example.com/realms/tools, got '${entry}'`,
        );
      }
    }
    return [...new Set(entries)];
  });

/** A comma-separated list of non-empty words. */
export const list = z
  .string()
  .optional()
  .transform((raw) => commaEntries(raw));

/** A JWT claim's name. */
export const claimName = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (unset(raw)) return undefined;
    if (!/^[\x21-\x7e]{1,100}$/.test(raw)) {
      return refuse(ctx, `must be a claim name of 1 to 100 visible characters, got '${raw}'`);
    }
    return raw;
  });
