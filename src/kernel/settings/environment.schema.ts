import { resolve } from 'node:path';
import proxyAddr from 'proxy-addr';
import * as z from 'zod/v4';
import { claimName, issuers, list, publicUrl } from './oauth.schema';
import { SettingsError } from './settings.error';
import { commaEntries, originOf, refuse, unset } from './variables';
import { retrySchedule, share, wholeIn } from './webhook.schema';

export { originOf };

/**
 * The environment as one typed schema: each variable the service reads, with its default, what it
 * accepts and the words of its refusal. A refusal stops the start-up with one line:
 * `Invalid environment: <VARIABLE> <what it must be>, got '<value>'`.
 */

/** A whole number of at least `min` (and at most `max`), or the fallback when unset. */
export function wholeNumber(fallback: number, min = 0) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (unset(raw)) return fallback;
      const value = Number(raw);
      if (!/^\d+$/.test(raw.trim()) || value < min || !Number.isSafeInteger(value)) {
        return refuse(ctx, `must be a whole number >= ${min}, got '${raw}'`);
      }
      return value;
    });
}

/** A list of origins: comma-separated, each kept in its normal form; `*` allows any. */
const origins = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const entries = commaEntries(raw);
    const normal: string[] = [];
    for (const entry of entries) {
      const origin = entry === '*' ? entry : originOf(entry);
      if (origin === undefined) {
        return refuse(
          ctx,
          `entries must be origins like https://app.example.com, or *; got '${entry}'`,
        );
      }
      normal.push(origin);
    }
    return normal;
  });

/**
 * `TRUST_PROXY`: `true`, `false`, a hop count, or addresses and subnets (with Express's names
 * `loopback`, `linklocal`, `uniquelocal`), checked by the library Express itself compiles it with.
 */
const trustProxy = z
  .string()
  .optional()
  .transform((raw, ctx): boolean | number | string => {
    if (unset(raw) || raw === 'false') return false;
    if (raw === 'true') return true;
    if (/^\d+$/.test(raw)) return Number(raw);
    try {
      proxyAddr.compile(raw.split(',').map((entry) => entry.trim()));
    } catch {
      return refuse(
        ctx,
        `must be true, false, a hop count, or comma-separated addresses or subnets (or loopback, linklocal, uniquelocal); got '${raw}'`,
      );
    }
    return raw;
  });

const httpAdapter = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const name = (raw || 'express').trim().toLowerCase();
    if (name === 'express' || name === 'fastify') return name;
    return refuse(ctx, `must be 'express' or 'fastify', got '${raw}'`);
  });

/** A Redis node or Sentinel as the environment names it. */
export interface HostPort {
  host: string;
  port: number;
}

/** `host:port` or `[v6]:port`, comma-separated; at least one. */
const hostPorts = z
  .string()
  .optional()
  .transform((raw, ctx): HostPort[] | undefined => {
    if (unset(raw)) return undefined;
    const entries = commaEntries(raw);
    if (!entries.length) return refuse(ctx, 'must list host:port entries');
    const nodes: HostPort[] = [];
    for (const entry of entries) {
      const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+)):(\d{1,5})$/.exec(entry);
      const port = Number(match?.[3]);
      if (!match || port < 1 || port > 65535) {
        return refuse(ctx, `entries must be host:port (port 1-65535), got '${entry}'`);
      }
      nodes.push({ host: match[1] ?? match[2], port });
    }
    return nodes;
  });

const redisUrl = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (unset(raw)) return undefined;
    if (!/^rediss?:\/\//.test(raw)) return refuse(ctx, 'must start with redis:// or rediss://');
    return raw;
  });

const sentinelName = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const name = raw || 'mymaster';
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) {
      return refuse(ctx, `must be 1 to 64 of letters, digits and '._-', got '${name}'`);
    }
    return name;
  });

const waitReplicas = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (unset(raw)) return undefined;
    if (!/^\d{1,2}$/.test(raw.trim())) {
      return refuse(ctx, `must be a whole number from 0 to 99, got '${raw}'`);
    }
    return Number(raw);
  });

/**
 * REDIS_KEY_PREFIX: no braces, since the key layout puts a Cluster hash tag (`{...}`) right after
 * the prefix, and a brace in the prefix would become the tag of every key.
 */
const redisKeyPrefix = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const prefix = raw ?? 'tis:';
    if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(prefix)) {
      return refuse(
        ctx,
        `must be 1 to 64 of letters, digits and ':_.-' (no braces: they would break Cluster hash tags), got '${prefix}'`,
      );
    }
    return prefix;
  });

/** `true` or `false` (any case), or the fallback when unset. */
function flag(fallback: boolean) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (unset(raw)) return fallback;
      const value = raw.trim().toLowerCase();
      if (value === 'true' || value === 'false') return value === 'true';
      return refuse(ctx, `must be true or false, got '${raw}'`);
    });
}

const text = z
  .string()
  .optional()
  .transform((raw) => (unset(raw) ? undefined : raw));

/** At least 32 characters: the keys that seal secrets at rest (webhooks', sources') are derived from it. */
const secretKey = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (unset(raw)) return undefined;
    if (raw.length < 32) return refuse(ctx, 'must be at least 32 characters (a long random text)');
    return raw;
  });

/** Every variable the service reads; others pass through untouched (the environment is the operator's). */
export const EnvironmentSchema = z.looseObject({
  DATA_DIR: z
    .string()
    .optional()
    .transform((raw) => resolve(raw || './data')),
  CONFIG_FILE: z
    .string()
    .optional()
    .transform((raw) => (raw ? resolve(raw) : undefined)),
  REDIS_URL: redisUrl,
  REDIS_SENTINELS: hostPorts,
  REDIS_SENTINEL_NAME: sentinelName,
  REDIS_SENTINEL_PASSWORD: text,
  REDIS_CLUSTER_NODES: hostPorts,
  REDIS_PASSWORD: text,
  REDIS_WAIT_REPLICAS: waitReplicas,
  REDIS_KEY_PREFIX: redisKeyPrefix,
  TRUST_PROXY: trustProxy,
  DEFAULT_PLAN: z
    .string()
    .optional()
    .transform((raw) => raw || 'free'),
  AUTH_FAILURE_LIMIT: z
    .string()
    .optional()
    .transform((raw, ctx) => (unset(raw) ? undefined : parseVariable(wholeNumber(0, 1), raw, ctx))),
  AUTH_FAILURE_WINDOW_SECONDS: wholeNumber(60, 1),
  RATE_LIMIT_WINDOW_MS: wholeNumber(1000, 100),
  DOCTOR_CHECK_TIMEOUT_MS: wholeNumber(5000, 10),
  DOCTOR_DISK_WARN_MB: wholeNumber(1024),
  DOCTOR_DISK_FAIL_MB: wholeNumber(100),
  DOCTOR_LEDGER_INTERVAL_SECONDS: wholeNumber(60),
  BODY_LIMIT_BYTES: wholeNumber(1024 * 1024, 1024),
  TOOL_BODY_LIMIT_BYTES: wholeNumber(64 * 1024, 1024),
  IDEMPOTENCY_MAX_BYTES_PER_KEY: wholeNumber(8 * 1024 * 1024, 1024),
  IDEMPOTENCY_MAX_ENTRIES_PER_KEY: wholeNumber(10_000, 1),
  HTTP_HEADERS_TIMEOUT_MS: wholeNumber(10_000, 100),
  HTTP_REQUEST_TIMEOUT_MS: wholeNumber(30_000, 100),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: wholeNumber(65_000, 100),
  HTTP_MAX_CONNECTIONS: wholeNumber(10_000, 1),
  MCP_ALLOWED_ORIGINS: origins,
  CORS_ORIGINS: origins,
  HTTP_ADAPTER: httpAdapter,
  MCP_LEAN_PATH: flag(true),
  PUBLIC_URL: publicUrl,
  OAUTH_ISSUERS: issuers,
  OAUTH_AUDIENCES: list,
  OAUTH_DEFAULT_PLAN: text,
  OAUTH_PLAN_CLAIM: claimName,
  OAUTH_EXTERNAL_ID_CLAIM: claimName,
  OAUTH_JWKS_REFETCH_MS: wholeNumber(60_000),
  OAUTH_ISSUER_MAX_BYTES: wholeNumber(1024 * 1024, 1024),
  OAUTH_ISSUER_TIMEOUT_MS: wholeNumber(5_000, 100),
  OAUTH_PRINCIPAL_IDLE_DAYS: wholeNumber(90, 1),
  OAUTH_MAX_PRINCIPALS: wholeNumber(100_000, 1),
  CONSOLE_OAUTH_CLIENT_ID: text,
  CONSOLE_OAUTH_ISSUER: text,
  INVOCATION_LEASE_MS: wholeNumber(15_000, 300),
  MCP_TASK_AFTER_MS: wholeNumber(10_000),
  SHUTDOWN_DRAIN_MS: wholeNumber(30_000),
  WEBHOOK_ALLOW_PRIVATE: flag(false),
  SECRETS_KEY: secretKey,
  WEBHOOK_SECRET_KEY: secretKey,
  WEBHOOK_RETRY_SCHEDULE: retrySchedule,
  WEBHOOK_POLL_MS: wholeNumber(1000, 10),
  WEBHOOK_CONCURRENCY: wholeIn(20, 1, 1000),
  WEBHOOK_ENDPOINT_SHARE: share(0.25),
  WEBHOOK_TIMEOUT_MS: wholeIn(15_000, 100, 600_000),
  WEBHOOK_MAX_PENDING_PER_ENDPOINT: wholeIn(10_000, 1, 1_000_000),
  LEDGER_RETENTION_DAYS: wholeNumber(400, 1),
  SOURCE_ALLOW_PRIVATE: flag(false),
  SOURCE_MAX_RESULT_BYTES: wholeNumber(10 * 1024 * 1024, 1024),
  LEDGER_MAX_EXPORTS: wholeNumber(2, 1),
});

export type ParsedEnvironment = z.output<typeof EnvironmentSchema>;

/** A value checked by one of the schema's types inside another's transform (its issues carried over). */
function parseVariable<T>(
  type: z.ZodType<T, string | undefined>,
  raw: string,
  ctx: z.RefinementCtx,
): T {
  const parsed = type.safeParse(raw);
  if (parsed.success) return parsed.data;
  return refuse(ctx, parsed.error.issues[0]?.message ?? 'is invalid');
}

/**
 * The environment parsed, or the first refusal as a SettingsError of one line naming the variable.
 * `name` names a variable read outside the schema (a plan's, `PLAN_<NAME>_DAILY_LIMIT`).
 */
export function parseEnvironment<T>(
  schema: z.ZodType<T>,
  env: Record<string, string | undefined>,
): T {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const variable = issue.path.join('.');
  throw new SettingsError(`Invalid environment: ${variable ? `${variable} ` : ''}${issue.message}`);
}

/** One variable read outside the schema (a plan's), with one of its types. */
export function parseOne<T>(type: z.ZodType<T, string | undefined>, name: string, raw: string): T {
  const schema = z.looseObject({ [name]: type });
  return parseEnvironment(schema, { [name]: raw })[name];
}
