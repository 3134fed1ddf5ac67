import { IntField } from '../kernel/validation/fields';

/** The bounds of each limit a key or an OAuth principal may hold over its plan's. */
export const LIMIT_BOUNDS = {
  daily_limit: { minimum: 0, maximum: 1_000_000_000 },
  monthly_limit: { minimum: 0, maximum: 100_000_000_000 },
  rate_limit: { minimum: 1, maximum: 1_000_000 },
} as const;

/*
 * The same limits as fields of a PATCH (a key's, a principal's): only those given change, and null
 * returns one to the plan's.
 */
export const DailyLimitPatch = () =>
  IntField({
    description: "Credits per UTC day, beating the plan's; null: the plan's.",
    nullable: true,
    ...LIMIT_BOUNDS.daily_limit,
    example: 500,
  });

export const MonthlyLimitPatch = () =>
  IntField({
    description: "Credits per UTC calendar month, beating the plan's; null: the plan's.",
    nullable: true,
    ...LIMIT_BOUNDS.monthly_limit,
  });

export const RateLimitPatch = () =>
  IntField({
    description:
      "Calls per rate-limit window (a second by default), beating the plan's; null: the plan's.",
    nullable: true,
    ...LIMIT_BOUNDS.rate_limit,
  });
