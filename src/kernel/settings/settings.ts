import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { EnvironmentSchema, parseEnvironment, type ParsedEnvironment } from './environment.schema';
import { redisSettingsFrom, RedisSettings } from './redis.settings';
import { SettingsError } from './settings.error';
import { checkLimit, planNamed, resolvePlans, type PlanLimits } from './plans';
export { DEFAULT_PLANS, planNamed, type PlanLimits } from './plans';
import { toolOverridesFromFile, type ToolOverrides } from './tool-settings';
import { secretsKeyOf, webhookSettingsFrom, type WebhookSettings } from './webhook.settings';
export { originOf } from './environment.schema';

/** The process environment, injectable so that tests can start an app with an environment of their own. */
export const ENVIRONMENT = Symbol('ENVIRONMENT');
export type Environment = Record<string, string | undefined>;

/** Typed operator settings, read and validated once at start-up. */
export const SETTINGS = Symbol('SETTINGS');

/** PORT and HOST are not here: they pin `server.port` / `server.host` of the configuration tree. */
export interface Settings {
  dataDir: string;
  configFile?: string;
  /** CONFIG_FILE parsed, once: `limits:` is read here, the rest is the configuration tree's layer. */
  configDocument?: unknown;
  /** Unset: the embedded SQLite store. Set: all shared state in Redis (single, Sentinel or Cluster). */
  redis?: RedisSettings;
  /** Prefix of every Redis key and channel: several deployments (or tests) can share one Redis. */
  redisKeyPrefix: string;
  /** The `trust proxy` value (Express's, which Fastify's `trustProxy` takes too): how many proxies (or which) to trust for the client address. */
  trustProxy: boolean | number | string;
  plans: Record<string, PlanLimits>;
  defaultPlan: string;
  initialKeyPlan: string;
  /** Failed authentications allowed per client address per window. */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
  /** Length of the per-key rate-limit window; plan and key limits are calls per window. */
  rateLimitWindowMs: number;
  doctor: {
    /** Each check's time limit; a check still running then reports `fail`. */
    checkTimeoutMs: number;
    /** Free disk space below which `disk_space` warns, then fails. */
    diskWarnMb: number;
    diskFailMb: number;
    /** DOCTOR_LEDGER_INTERVAL_SECONDS: the ledger check's last result serves until then (0: none). */
    ledgerIntervalSeconds: number;
  };
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /**
   * Largest body of a tool route (`POST /api/v1/services/<tool>`), at most bodyLimitBytes: a tool's
   * input is a few hundred bytes, and what a hostile body costs grows with its size.
   */
  toolBodyLimitBytes: number;
  /**
   * What a key may keep of idempotent answers: past either cap, a call with a new Idempotency-Key
   * is 429 until the oldest kept answer expires.
   */
  idempotency: { maxBytesPerKey: number; maxEntriesPerKey: number };
  /** Limits on slow clients: whole headers, whole request, idle keep-alive connection. */
  httpTimeouts: HttpTimeouts;
  /** Open connections at most; past it a new connection is closed as it is accepted. */
  httpMaxConnections: number;
  /** Browser origins (`scheme://host[:port]`) allowed to call /mcp; `*` allows any. */
  mcpAllowedOrigins: string[];
  /** Browser origins allowed to call the API (CORS); `*` allows any; none by default. */
  corsOrigins: string[];
  /**
   * MCP's hot messages answered by the fast path in front of the SDK's entry (MCP_LEAN_PATH);
   * false sends every request to the SDK (the same answers, slower).
   */
  mcpFastPath: boolean;
  /** The HTTP framework under Nest (HTTP_ADAPTER): the same contract on either. */
  httpAdapter: 'express' | 'fastify';
  /** CONFIG_FILE's `tools:` section: per tool, what the operator overrides of its runtime. */
  toolOverrides: Record<string, ToolOverrides>;
  /** The runtime of long-running calls (docs/long-running-calls.md). */
  invocations: {
    /** A running call's lease: an instance silent this long is taken for stopped. */
    leaseMs: number;
    /** How often an instance renews its calls' leases and reads their cancel marks. */
    renewMs: number;
    /** An MCP call of a client that declared tasks becomes a task after this long. */
    mcpTaskAfterMs: number;
    /** On SIGTERM, running calls may finish for this long before they are stopped. */
    shutdownDrainMs: number;
  };
  /** Webhook deliveries (docs/webhooks.md). */
  webhooks: WebhookSettings;
  /** Upstream sources (docs/sources.md): SOURCE_ALLOW_PRIVATE, SOURCE_MAX_RESULT_BYTES, SECRETS_KEY. */
  sources: { allowPrivate: boolean; maxResultBytes: number; secretKey?: string };
  /** LEDGER_RETENTION_DAYS: ledger entries are kept this many days (docs/runs-and-ledger.md). */
  ledgerRetentionDays: number;
  /** LEDGER_MAX_EXPORTS: whole-range ledger streams at once an instance; past it a 429. */
  ledgerMaxExports: number;
  /** The service's external origin (PUBLIC_URL), when set. */
  publicUrl?: string;
  /** OAuth access tokens accepted beside keys: set when OAUTH_ISSUERS is (which needs PUBLIC_URL). */
  oauth?: OAuthSettings;
  version: string;
}

/** The service as an OAuth protected resource (docs/oauth.md). */
export interface OAuthSettings {
  /** PUBLIC_URL: the REST resource is this origin, the MCP resource `<origin>/mcp`. */
  publicUrl: string;
  /** Issuer identifiers whose access tokens are accepted (`iss` equals one exactly). */
  issuers: string[];
  /** Audiences accepted besides the resource's own URL (for providers without RFC 8707). */
  audiences: string[];
  /** A principal's plan when its token names none the service knows. */
  defaultPlan: string;
  /** The claim that names a principal's plan, when the provider issues one. */
  planClaim?: string;
  /** The claim that names a principal's external id (its customer or account), when one does. */
  externalIdClaim?: string;
  /** Refetches of an issuer's keys that unknown `kid`s cause are at least this far apart. */
  jwksRefetchMs: number;
  /** One read of an issuer's metadata or JWKS: refused past this size (unread) and this time. */
  issuerMaxBytes: number;
  issuerTimeoutMs: number;
  /** Principals unseen this many days (enabled, without operator settings) are purged. */
  principalIdleDays: number;
  /** At most this many principals: a new subject past it is refused. */
  maxPrincipals: number;
  /**
   * The operator console's sign-in through an issuer (CONSOLE_OAUTH_CLIENT_ID,
   * CONSOLE_OAUTH_ISSUER): a public client, authorization code with PKCE.
   */
  console?: { clientId: string; issuer: string };
}

export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

export { SettingsError };

/** CONFIG_FILE read and parsed: the one place the file is read (doctor reads it again on demand). */
function readConfigDocument(configFile: string | undefined): unknown {
  if (!configFile) return undefined;
  try {
    return parseYaml(readFileSync(configFile, 'utf8')) as unknown;
  } catch (error) {
    throw new SettingsError(`Cannot read CONFIG_FILE ${configFile}: ${(error as Error).message}`);
  }
}

/** The operator's `limits:` section of CONFIG_FILE; everything else in that file is the tool configuration. */
function limitsFromFile(configFile: string | undefined, doc: unknown): Record<string, unknown> {
  if (doc && typeof doc === 'object' && 'limits' in doc) {
    const limits = doc.limits;
    if (limits && typeof limits === 'object') return limits as Record<string, unknown>;
    throw new SettingsError(`Invalid CONFIG_FILE ${configFile}: 'limits' must be a mapping`);
  }
  return {};
}

/**
 * The settings of an environment: the variables parsed by one typed schema (EnvironmentSchema),
 * the operator's sections of CONFIG_FILE (`limits:`), and what depends on both. Anything invalid
 * stops the start-up with one line naming it (SettingsError).
 */
export function loadSettings(env: Environment): Settings {
  const parsed = parseEnvironment(EnvironmentSchema, env);
  const configFile = parsed.CONFIG_FILE;
  const configDocument = readConfigDocument(configFile);
  const fileLimits = limitsFromFile(configFile, configDocument);
  const plans = resolvePlans(env, fileLimits);
  const defaultPlan = parsed.DEFAULT_PLAN;
  if (!planNamed(plans, defaultPlan))
    throw new SettingsError(`Invalid environment: DEFAULT_PLAN '${defaultPlan}' is not a plan`);
  const fileAuthLimit = fileLimits.auth_failures_per_minute;
  const httpTimeouts = {
    headersMs: parsed.HTTP_HEADERS_TIMEOUT_MS,
    requestMs: parsed.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveMs: parsed.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  };
  if (httpTimeouts.headersMs > httpTimeouts.requestMs) {
    throw new SettingsError(
      'Invalid environment: HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS',
    );
  }
  return {
    ...oauthSettings(parsed, plans),
    dataDir: parsed.DATA_DIR,
    configFile,
    configDocument,
    redis: redisSettingsFrom(parsed),
    redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    trustProxy: parsed.TRUST_PROXY,
    plans,
    defaultPlan,
    initialKeyPlan: 'unlimited',
    authFailureLimit:
      parsed.AUTH_FAILURE_LIMIT ??
      (fileAuthLimit === undefined
        ? 100
        : (checkLimit('limits.auth_failures_per_minute', fileAuthLimit, false) as number)),
    authFailureWindowSeconds: parsed.AUTH_FAILURE_WINDOW_SECONDS,
    rateLimitWindowMs: parsed.RATE_LIMIT_WINDOW_MS,
    doctor: {
      checkTimeoutMs: parsed.DOCTOR_CHECK_TIMEOUT_MS,
      diskWarnMb: parsed.DOCTOR_DISK_WARN_MB,
      diskFailMb: parsed.DOCTOR_DISK_FAIL_MB,
      ledgerIntervalSeconds: parsed.DOCTOR_LEDGER_INTERVAL_SECONDS,
    },
    bodyLimitBytes: parsed.BODY_LIMIT_BYTES,
    toolBodyLimitBytes: Math.min(parsed.TOOL_BODY_LIMIT_BYTES, parsed.BODY_LIMIT_BYTES),
    idempotency: {
      maxBytesPerKey: parsed.IDEMPOTENCY_MAX_BYTES_PER_KEY,
      maxEntriesPerKey: parsed.IDEMPOTENCY_MAX_ENTRIES_PER_KEY,
    },
    httpTimeouts,
    httpMaxConnections: parsed.HTTP_MAX_CONNECTIONS,
    mcpAllowedOrigins: parsed.MCP_ALLOWED_ORIGINS,
    corsOrigins: parsed.CORS_ORIGINS,
    httpAdapter: parsed.HTTP_ADAPTER,
    mcpFastPath: parsed.MCP_LEAN_PATH,
    toolOverrides: toolOverridesFromFile(configFile, configDocument),
    invocations: {
      leaseMs: parsed.INVOCATION_LEASE_MS,
      renewMs: Math.max(100, Math.min(1000, Math.floor(parsed.INVOCATION_LEASE_MS / 3))),
      mcpTaskAfterMs: parsed.MCP_TASK_AFTER_MS,
      shutdownDrainMs: parsed.SHUTDOWN_DRAIN_MS,
    },
    webhooks: webhookSettingsFrom(parsed),
    sources: {
      allowPrivate: parsed.SOURCE_ALLOW_PRIVATE,
      maxResultBytes: parsed.SOURCE_MAX_RESULT_BYTES,
      secretKey: secretsKeyOf(parsed),
    },
    ledgerRetentionDays: parsed.LEDGER_RETENTION_DAYS,
    ledgerMaxExports: parsed.LEDGER_MAX_EXPORTS,
    version: packageVersion(),
  };
}

/** PUBLIC_URL, and OAuth when OAUTH_ISSUERS names an issuer (then PUBLIC_URL is required). */
function oauthSettings(
  parsed: ParsedEnvironment,
  plans: Record<string, PlanLimits>,
): Pick<Settings, 'publicUrl' | 'oauth'> {
  const publicUrl = parsed.PUBLIC_URL;
  const consoleClient = parsed.CONSOLE_OAUTH_CLIENT_ID;
  const consoleIssuer = parsed.CONSOLE_OAUTH_ISSUER;
  if (!consoleClient !== !consoleIssuer) {
    throw new SettingsError(
      'Invalid environment: CONSOLE_OAUTH_CLIENT_ID and CONSOLE_OAUTH_ISSUER go together: set both or neither',
    );
  }
  if (consoleIssuer && !parsed.OAUTH_ISSUERS.includes(consoleIssuer)) {
    throw new SettingsError(
      `Invalid environment: CONSOLE_OAUTH_ISSUER '${consoleIssuer}' must be one of OAUTH_ISSUERS`,
    );
  }
  if (parsed.OAUTH_ISSUERS.length === 0) return { publicUrl };
  if (!publicUrl) {
    throw new SettingsError(
      'Invalid environment: OAUTH_ISSUERS needs PUBLIC_URL, the origin clients reach the service at',
    );
  }
  const oauthPlan = parsed.OAUTH_DEFAULT_PLAN ?? 'free';
  if (!planNamed(plans, oauthPlan)) {
    throw new SettingsError(`Invalid environment: OAUTH_DEFAULT_PLAN '${oauthPlan}' is not a plan`);
  }
  return {
    publicUrl,
    oauth: {
      publicUrl,
      issuers: parsed.OAUTH_ISSUERS,
      audiences: parsed.OAUTH_AUDIENCES,
      defaultPlan: oauthPlan,
      planClaim: parsed.OAUTH_PLAN_CLAIM,
      externalIdClaim: parsed.OAUTH_EXTERNAL_ID_CLAIM,
      jwksRefetchMs: parsed.OAUTH_JWKS_REFETCH_MS,
      issuerMaxBytes: parsed.OAUTH_ISSUER_MAX_BYTES,
      issuerTimeoutMs: parsed.OAUTH_ISSUER_TIMEOUT_MS,
      principalIdleDays: parsed.OAUTH_PRINCIPAL_IDLE_DAYS,
      maxPrincipals: parsed.OAUTH_MAX_PRINCIPALS,
      ...(consoleClient && consoleIssuer
        ? { console: { clientId: consoleClient, issuer: consoleIssuer } }
        : {}),
    },
  };
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
