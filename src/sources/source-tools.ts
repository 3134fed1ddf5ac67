import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { minimatch } from 'minimatch';
import { ApiError, ValidationFailed } from '../kernel/errors/api-error';
import type { ValidationIssue } from '../kernel/errors/validation-issue';
import { isPlainObject } from '../kernel/common/plain-object';
import type { RegisteredTool, ToolContext } from '../tools/index';
import type { SourceDefinition } from './source-config';
import { refCycle } from './source-schemas';
import { UpstreamError, type Upstream, type UpstreamTool } from './upstreams/upstream';

/** What a tool name may hold (routes, scopes, MCP): at most 64 of these. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** A call's arguments are refused past this many issues. */
const MAX_ISSUES = 20;

/** The DTO class every source tool names: its schema is the upstream's, checked by ajv. */
export class SourceToolInput {}
export class SourceToolOutput {}

/**
 * A validator of one listing of a source: its schemas go when the listing is replaced (ajv keeps
 * every schema it compiled, and an `$id` twice is an error).
 */
function newAjv(): Ajv {
  return new Ajv({ strict: false, allErrors: false, validateFormats: false });
}

/**
 * The upstream's own input schema compiled. Its `$schema` is set aside: tool schemas keep to what
 * draft-07 and 2020-12 share, and ajv would otherwise refuse a dialect it was not built with.
 */
function compile(ajv: Ajv, schema: Record<string, unknown>): ValidateFunction {
  const { $schema: _, ...rest } = schema;
  return ajv.compile(rest);
}

function issueOf(error: ErrorObject): ValidationIssue {
  const loc: (string | number)[] = ['body', ...error.instancePath.split('/').filter(Boolean)];
  const missing = error.keyword === 'required' ? String(error.params.missingProperty) : undefined;
  return {
    loc: missing ? [...loc, missing] : loc,
    msg: error.message ?? 'Invalid value',
    type: error.keyword,
  };
}

/** A tool of a source as the registry keeps it, and where it came from. */
export interface SourceTool {
  tool: RegisteredTool;
  upstreamName: string;
}

/** Whether `name` is chosen by the source's include and exclude lists (names or globs). */
export function chosen(definition: SourceDefinition, name: string): boolean {
  const matches = (pattern: string) => minimatch(name, pattern, { dot: true, nocomment: true });
  return definition.include.some(matches) && !definition.exclude.some(matches);
}

/** Where a source's calls go: its upstream and the refusals of a source that is not ready. */
export interface SourceLink {
  upstream(): Upstream | undefined;
  /** The source is unavailable: a 503 with Retry-After. */
  unavailable(error?: UpstreamError): ApiError;
  maxConcurrency(): (run: () => Promise<unknown>) => Promise<unknown>;
}

/**
 * The tools of `definition` the service can serve, or why each other is left out: a name it
 * cannot route (kept `[A-Za-z0-9_.-]`, 64 at most), one that is taken (`taken`), a schema ajv
 * cannot compile.
 */
export function sourceTools(
  definition: SourceDefinition,
  listed: UpstreamTool[],
  taken: (name: string) => boolean,
  link: SourceLink,
): { tools: SourceTool[]; omitted: { name: string; reason: string }[] } {
  const tools: SourceTool[] = [];
  const omitted: { name: string; reason: string }[] = [];
  const mine = new Set<string>();
  const ajv = newAjv();
  for (const upstream of listed) {
    if (!chosen(definition, upstream.name)) continue;
    const name = `${definition.prefix}_${upstream.name}`;
    if (!TOOL_NAME.test(name)) {
      omitted.push({
        name: upstream.name,
        reason: `${name} is not a tool name ([A-Za-z0-9_.-], 64 at most)`,
      });
      continue;
    }
    if (taken(name) || mine.has(name.toLowerCase())) {
      omitted.push({ name: upstream.name, reason: `${name} is taken by another tool` });
      continue;
    }
    const schema = isPlainObject(upstream.inputSchema) ? upstream.inputSchema : {};
    const cycle = refCycle(schema);
    if (cycle !== undefined) {
      omitted.push({ name: upstream.name, reason: `its input schema: a $ref cycle at ${cycle}` });
      continue;
    }
    let validate: ValidateFunction;
    try {
      validate = compile(ajv, schema);
    } catch (error) {
      omitted.push({
        name: upstream.name,
        reason: `its input schema: ${(error as Error).message.slice(0, 200)}`,
      });
      continue;
    }
    mine.add(name.toLowerCase());
    tools.push({
      tool: registered(definition, name, upstream, validate, link),
      upstreamName: upstream.name,
    });
  }
  return { tools, omitted };
}

function registered(
  definition: SourceDefinition,
  name: string,
  upstream: UpstreamTool,
  validate: ValidateFunction,
  link: SourceLink,
): RegisteredTool {
  const cost = definition.toolCosts[upstream.name] ?? definition.cost;
  const limit = link.maxConcurrency();
  return {
    name,
    title: upstream.title,
    description: upstream.description ?? '',
    annotations: upstream.annotations,
    input: SourceToolInput,
    output: SourceToolOutput,
    path: `/api/v1/services/${name}`,
    source: definition.name,
    upstreamName: upstream.name,
    answersMcpResult: definition.kind === 'mcp',
    runtime: {
      timeoutMs: definition.timeoutMs,
      concurrency: definition.maxConcurrency,
      queue: 64,
      cost,
      async: 'allowed',
      perCallerShare: 0.25,
    },
    inputSchema: upstream.inputSchema,
    // None when the upstream declares none: MCP clients then ask for no structured content.
    outputSchema: upstream.outputSchema,
    validateInput(args: unknown): object {
      const input = args ?? {};
      if (!validate(input)) {
        throw new ValidationFailed((validate.errors ?? []).slice(0, MAX_ISSUES).map(issueOf));
      }
      return input;
    },
    invoke: (input: object, context: ToolContext) =>
      limit(async () => {
        const target = link.upstream();
        if (!target) throw link.unavailable();
        try {
          const answer = await target.callTool(upstream.name, input as Record<string, unknown>, {
            signal: context.signal,
            onProgress: (p) => context.progress(p.progress, p.total, p.message),
          });
          return answer.kind === 'mcp' ? answer.result : answer.body;
        } catch (error) {
          if (!(error instanceof UpstreamError)) throw error;
          if (error.reason === 'unavailable') throw link.unavailable(error);
          throw new ApiError(502, error.message);
        }
      }),
  };
}
