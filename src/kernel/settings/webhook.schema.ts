import * as z from 'zod/v4';
import { commaEntries, refuse, unset } from './variables';

/** The webhook variables' types (docs/webhooks.md), part of EnvironmentSchema. */

/** Seconds between a webhook's attempts: the delays after each failed one, comma-separated. */
export const retrySchedule = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (unset(raw)) return undefined;
    const steps = commaEntries(raw).map(Number);
    if (steps.length === 0 || steps.length > 20 || steps.some((s) => !(s >= 0 && s <= 86_400))) {
      return refuse(ctx, `must be 1 to 20 comma-separated seconds (0 to 86400), got '${raw}'`);
    }
    return steps;
  });

/** A whole number from `min` to `max`, or the fallback when unset. */
export function wholeIn(fallback: number, min: number, max: number) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (unset(raw)) return fallback;
      const value = Number(raw);
      if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
        return refuse(ctx, `must be a whole number from ${min} to ${max}, got '${raw}'`);
      }
      return value;
    });
}

/** A share of a whole: more than 0, at most 1 (`0.25`), or the fallback when unset. */
export function share(fallback: number) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (unset(raw)) return fallback;
      const value = Number(raw);
      if (!/^\s*(0|1)?(\.\d+)?\s*$/.test(raw) || !(value > 0 && value <= 1)) {
        return refuse(ctx, `must be a number more than 0 and at most 1 (0.25), got '${raw}'`);
      }
      return value;
    });
}
