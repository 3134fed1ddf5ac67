import { Inject, Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import * as z from 'zod/v4';
import {
  CallToolRequestSchema,
  CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { ValidationFailed, ValidationIssue } from '../errors/api-error';
import { errorAnswer, STATUS_TEXT } from '../errors/all-exceptions.filter';
import { isPlainObject } from '../errors/validation';
import { Settings, SETTINGS } from '../settings/settings';
import { RegisteredTool, ToolRegistry } from '../tools/tool.registry';
import { ToolInvoker } from './tool.invoker';

/**
 * The key a tools/call runs as. Over HTTP it is the request's (authenticated by ApiKeyGuard); over
 * stdio the key is checked again on every call, so a revoked or expired key stops working at once.
 */
export type KeySource = () => Promise<AuthenticatedKey>;

/**
 * A JSON-RPC error whose message is exactly ours: McpError prefixes `MCP error <code>: ` to its
 * message, which the client would then prefix again.
 */
class ProtocolError extends McpError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.message = message;
  }
}

function issueText(issue: ValidationIssue): string {
  return `${issue.loc.join('.')}: ${issue.msg} [${issue.type}]`;
}

/** -32602 with REST's 400 detail: a readable message naming each field, and the issues as data. */
function invalidArguments(tool: string, issues: ValidationIssue[]): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `Invalid arguments for tool '${tool}': ${issues.map(issueText).join('; ')}`,
    { detail: issues },
  );
}

function unknownTool(name: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `${STATUS_TEXT[404]}: no tool named '${name}'`,
    { detail: STATUS_TEXT[404] },
  );
}

function textOf(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return (detail as ValidationIssue[]).map(issueText).join('; ');
  return JSON.stringify(detail);
}

function success(body: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    ...(isPlainObject(body) ? { structuredContent: body } : {}),
  };
}

/** A tool call the service refused or that failed, as MCP's `isError` result with REST's detail. */
function failure(detail: unknown, retryAfter?: string | number): CallToolResult {
  let text = textOf(detail);
  if (retryAfter !== undefined && !/retry/i.test(text))
    text += ` Retry after ${retryAfter} seconds.`;
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Builds MCP servers (the SDK's low-level `Server`) whose tools are the registry's: `tools/list`
 * shows each tool's description and JSON Schemas, `tools/call` runs it through the ToolInvoker.
 * One server per HTTP request (stateless), or one for a stdio session.
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger('Mcp');

  constructor(
    private readonly registry: ToolRegistry,
    private readonly invoker: ToolInvoker,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * `rateCounted`: the transport already counted each request against the key's rate limit (HTTP),
   * so a tools/call is not counted again; over stdio it is.
   */
  create(keySource: KeySource, options: { rateCounted: boolean }): Server {
    const server = new Server(
      { name: 'tool-invocation-service', version: this.settings.version },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.registry.list().map(describeTool),
    }));
    server.setRequestHandler(CallToolWithAnyArguments, ({ params }) =>
      this.callTool(keySource, String(params.name), params.arguments, options.rateCounted),
    );
    return server;
  }

  private async callTool(keySource: KeySource, name: string, args: unknown, rateCounted: boolean) {
    const tool = this.registry.get(name);
    if (!tool) throw unknownTool(name);
    try {
      return success(await this.invoker.invoke(await keySource(), tool, args, { rateCounted }));
    } catch (error) {
      if (error instanceof ValidationFailed) throw invalidArguments(name, error.issues);
      return this.refusal(name, error);
    }
  }

  private refusal(tool: string, error: unknown): CallToolResult {
    const answer = errorAnswer(error, this.logger, `MCP tool ${tool}`);
    return failure(answer.detail, answer.headers['Retry-After']);
  }
}

/**
 * tools/call as the SDK defines it, but with `name` and `arguments` left as sent. The SDK's Server
 * checks a tools/call itself and answers a malformed one with -32602 (invalid params); parsed with
 * its own schema first, the same request would be -32603 (internal error). Arguments that are an
 * object reach our validation untouched, so it answers like REST (a `__proto__` key is the extra
 * field it is, not a prototype).
 */
const CallToolWithAnyArguments = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({
    name: z.unknown(),
    arguments: z.unknown().optional(),
  }),
});

function describeTool(tool: RegisteredTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
  };
}
