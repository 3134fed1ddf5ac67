import { z } from 'zod';
import { SettingsError } from '../kernel/settings/settings.error';

/** A source's name: what its scope (`services:execute:@<name>`), routes and prefix default name. */
export const SOURCE_NAME = /^[a-z][a-z0-9-]{0,31}$/;
/** A prefix keeps what a tool name may hold. */
const PREFIX = /^[A-Za-z0-9_.-]{1,32}$/;
/** At most this many sources, from CONFIG_FILE and the API together. */
export const MAX_SOURCES = 100;

const text = z.string().min(1).max(4096);
const whole = (min: number) => z.number().int().min(min);

const auth = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bearer'), token: text }),
  z.strictObject({
    type: z.literal('header'),
    name: z.string().regex(/^[A-Za-z0-9-]{1,64}$/),
    value: text,
  }),
  z.strictObject({
    type: z.literal('oauth_client_credentials'),
    token_url: text,
    client_id: text,
    client_secret: text,
    scope: z.string().min(1).max(1000).optional(),
    resource: text.optional(),
  }),
]);

/** A source as CONFIG_FILE's `sources.<name>` and `POST /api/v1/sources` write it. */
export const SourceFields = z.strictObject({
  kind: z.enum(['mcp', 'openapi']),
  url: text.optional(),
  command: text.optional(),
  args: z.array(z.string().max(4096)).max(100).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(4096)).optional(),
  document: text.optional(),
  base_url: text.optional(),
  prefix: z.string().regex(PREFIX, 'must be 1 to 32 of A-Z a-z 0-9 _ . -').optional(),
  include: z.array(z.string().min(1).max(200)).max(1000).optional(),
  exclude: z.array(z.string().min(1).max(200)).max(1000).optional(),
  cost: whole(0).optional(),
  timeout_ms: whole(100).max(3_600_000).optional(),
  max_concurrency: whole(1).max(1000).optional(),
  auth: auth.optional(),
  refresh_seconds: whole(0).optional(),
  tools: z.record(z.string(), z.strictObject({ cost: whole(0).optional() })).optional(),
});
export type SourceFieldsInput = z.infer<typeof SourceFields>;

/** The source as the service runs it: every default filled in. */
export interface SourceDefinition {
  name: string;
  kind: 'mcp' | 'openapi';
  url?: string;
  command?: string;
  args: string[];
  env: Record<string, string>;
  document?: string;
  baseUrl?: string;
  prefix: string;
  include: string[];
  exclude: string[];
  cost: number;
  toolCosts: Record<string, number>;
  timeoutMs: number;
  maxConcurrency: number;
  auth?: z.infer<typeof auth>;
  refreshSeconds: number;
  origin: 'config' | 'api';
}

/** `fields` of source `name` checked for what its kind needs; the definition, or why not. */
export function sourceDefinition(
  name: string,
  fields: SourceFieldsInput,
  origin: SourceDefinition['origin'],
): SourceDefinition {
  if (!SOURCE_NAME.test(name)) {
    throw new SourceInvalid(`The source name '${name}' must match [a-z][a-z0-9-]{0,31}.`);
  }
  if (fields.kind === 'mcp') {
    if ((fields.url === undefined) === (fields.command === undefined)) {
      throw new SourceInvalid(`Source ${name}: an mcp source has either url or command.`);
    }
    if (fields.document !== undefined || fields.base_url !== undefined) {
      throw new SourceInvalid(`Source ${name}: document and base_url are for openapi sources.`);
    }
    if (fields.url === undefined && fields.auth !== undefined) {
      throw new SourceInvalid(
        `Source ${name}: auth is for HTTP sources (a stdio source gets env).`,
      );
    }
  } else if (fields.document === undefined || fields.base_url === undefined) {
    throw new SourceInvalid(`Source ${name}: an openapi source has document and base_url.`);
  }
  if (fields.command === undefined && (fields.args !== undefined || fields.env !== undefined)) {
    throw new SourceInvalid(`Source ${name}: args and env are for a command.`);
  }
  const toolCosts: Record<string, number> = {};
  for (const [tool, settings] of Object.entries(fields.tools ?? {})) {
    if (settings.cost !== undefined) toolCosts[tool] = settings.cost;
  }
  return {
    name,
    kind: fields.kind,
    url: fields.url,
    command: fields.command,
    args: fields.args ?? [],
    env: fields.env ?? {},
    document: fields.document,
    baseUrl: fields.base_url,
    prefix: fields.prefix ?? name,
    include: fields.include ?? ['*'],
    exclude: fields.exclude ?? [],
    cost: fields.cost ?? 1,
    toolCosts,
    timeoutMs: fields.timeout_ms ?? 30_000,
    maxConcurrency: fields.max_concurrency ?? 16,
    auth: fields.auth,
    refreshSeconds: fields.refresh_seconds ?? 300,
    origin,
  };
}

/** A source refused: its message is the `{detail}` of a 400, or a start-up error. */
export class SourceInvalid extends Error {}

/** The first issue of a zod parse, as `<path>: <message>`. */
export function firstIssue(error: z.ZodError, at: string): string {
  const issue = error.issues[0];
  const path = [at, ...issue.path.map(String)].filter(Boolean).join('.');
  return `${path}: ${issue.message}`;
}

/** Every `${NAME}` in the strings of `value` read from `env`; a variable not set names itself. */
export function withEnvironment(
  value: unknown,
  env: Record<string, string | undefined>,
  at: string,
): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
      const found = env[variable];
      if (found === undefined) {
        throw new SettingsError(
          `Invalid CONFIG_FILE: ${at} reads \${${variable}}, which is not set`,
        );
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => withEnvironment(item, env, `${at}.${i}`));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withEnvironment(item, env, `${at}.${key}`)]),
    );
  }
  return value;
}

/** CONFIG_FILE's `sources:` section, every source checked: a start-up error names what is wrong. */
export function sourcesFromFile(
  document: unknown,
  env: Record<string, string | undefined>,
): SourceDefinition[] {
  if (!document || typeof document !== 'object' || !('sources' in document)) return [];
  const section = document.sources;
  if (section === null || typeof section !== 'object' || Array.isArray(section)) {
    throw new SettingsError("Invalid CONFIG_FILE: 'sources' must be a mapping");
  }
  const entries = Object.entries(section);
  if (entries.length > MAX_SOURCES) {
    throw new SettingsError(`Invalid CONFIG_FILE: at most ${MAX_SOURCES} sources`);
  }
  return entries.map(([name, raw]) => {
    const parsed = SourceFields.safeParse(withEnvironment(raw, env, `sources.${name}`));
    if (!parsed.success) {
      throw new SettingsError(
        `Invalid CONFIG_FILE: ${firstIssue(parsed.error, `sources.${name}`)}`,
      );
    }
    try {
      return sourceDefinition(name, parsed.data, 'config');
    } catch (error) {
      throw new SettingsError(`Invalid CONFIG_FILE: ${(error as Error).message}`);
    }
  });
}
