/**
 * The time source of quota days and rate buckets; tests swap it to cross UTC midnight or to refill
 * a bucket without waiting.
 */
export abstract class Clock {
  abstract now(): Date;

  /** Milliseconds since the epoch. */
  nowMs(): number {
    return this.now().getTime();
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }

  override nowMs(): number {
    return Date.now();
  }
}

const DAY_MS = 86_400_000;

/** The last day formatted: every tool call asks for today's. */
let lastDay = { start: NaN, text: '' };

/** The UTC day a moment falls in, as `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  const ms = at.getTime();
  const start = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
  if (start !== lastDay.start) {
    lastDay = { start, text: new Date(start).toISOString().slice(0, 10) };
  }
  return lastDay.text;
}

export function nextUtcMidnight(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}
