import { Injectable } from '@nestjs/common';
import { hasAnyScope, toolScope, toolScopes } from '../../kernel/auth/scopes';
import { AuthChallenges } from '../../kernel/auth/challenges';
import type { ApiRequest, Caller } from '../../subjects';
import { requestLogFields } from '../../kernel/http/request-log';
import type { RequestScope } from '../../kernel/http/request-scope';
import { HttpExchange } from '../../kernel/http/http-exchange';
import { CallControl } from '../../invocations';
import type { ToolCaller } from '../../invocations';
import { LimitsService } from '../../limits';
import { isPlainObject } from '../../kernel/common/plain-object';
import {
  duplicateRequestId,
  initializeInBatch,
  malformedInitialize,
  MessageRefusal,
  messagesOf,
  oversizedMeta,
  refusalBody,
} from './mcp-messages';
import { McpCancels } from './mcp.cancels';
import { McpHttpEntry } from './mcp.http';
import { McpFastPath } from './mcp.fast-path';
import { answeredBySdk, McpOperations } from './mcp-operations';
import type { McpCatalog } from './mcp-catalog';

/**
 * One MCP POST answered, on whichever endpoint it came (`/mcp`, `/mcp/sources/<source>`): the
 * endpoint's catalog says which tools it serves and by which names; everything else (the
 * messages' checks, their rate, the fast path, the SDK's entry, the calls' runtime) is the same.
 */
@Injectable()
export class McpPost {
  constructor(
    private readonly entry: McpHttpEntry,
    private readonly lean: McpFastPath,
    private readonly limits: LimitsService,
    private readonly exchange: HttpExchange,
    private readonly cancels: McpCancels,
    private readonly challenges: AuthChallenges,
    private readonly operations: McpOperations,
  ) {}

  async answer(catalog: McpCatalog, key: Caller, req: ApiRequest, reply: object): Promise<void> {
    const messages = messagesOf(req.body);
    // Each message is timed by this POST (mcp_server_operation_duration_seconds, with its answer).
    (req as RequestScope).mcpMessages = messages;
    const duplicate = duplicateRequestId(messages) ?? initializeInBatch(req.body);
    if (duplicate) return this.refuse(req, reply, duplicate);
    this.refuseForbiddenTool(catalog, key, messages);
    const nodeReq = this.exchange.nodeRequest(req);
    const lean =
      messages.length === 1 ? this.lean.take(req.body, nodeReq.headers, catalog) : undefined;
    const refused = oversizedMeta(messages) ?? malformedInitialize(req.body);
    // One tools/call that the fast path answers counts its rate with its credits, in one step of
    // the store, as a REST call does. Any other POST pays every message's rate before any runs,
    // all or none (over HTTP a refusal is the POST's 429); one of no message at all (an empty
    // batch, a bare value) still costs one.
    const ownRate = !refused && lean !== undefined && this.lean.reachesRateStep(lean, catalog);
    if (!ownRate) {
      this.exchange.setHeaders(
        reply,
        await this.limits.countMessages(key, Math.max(1, messages.length)),
      );
    }
    if (refused) return this.refuse(req, reply, refused);
    // A 2025 client cancels a call of another POST by its request id (this instance's only).
    this.cancels.cancelAll(key.id, messages);
    const authorization = this.exchange.headerValues(req, 'authorization');
    const nodeRes = this.exchange.nodeResponse(reply);
    let calls = 0;
    const callerOf = (): ToolCaller => ({
      transport: 'mcp-http',
      resource: 'mcp',
      authorization,
      client: req.ip ?? 'unknown',
      requestId: req.id,
      rateLimitCounted: !ownRate,
      // The POST's own authentication serves its first call; each later one authenticates again.
      caller: calls++ === 0 ? key : undefined,
      // A call's quota headers (and, counting its own rate, its rate headers) are the answer's.
      // Set before the answer is written (Node merges them into its head), never after.
      onAnswer: (answer) => {
        if (!nodeRes.headersSent) this.exchange.setHeaders(reply, answer.headers);
      },
    });
    const logFields = () => requestLogFields(nodeReq, key);
    const track = (requestId: string | number, control: CallControl) =>
      this.cancels.register(key.id, requestId, control);
    if (lean) {
      // Taken over once answered: a call's rate refusal is thrown, and answered as any 429.
      const answer = await this.lean.answer(lean, {
        caller: callerOf,
        who: key,
        logFields,
        // The client closing the POST before its answer stops the call.
        watchClient: (control) => {
          const gone = () => {
            if (!nodeRes.writableFinished) control.stop('client-gone');
          };
          nodeRes.once('close', gone);
          return () => nodeRes.off('close', gone);
        },
        track,
        catalog,
      });
      const { res } = this.exchange.takeOver(req, reply);
      res.statusCode = answer.status;
      res.setHeader('content-type', 'application/json');
      res.end(answer.body);
      return;
    }
    const { res } = this.exchange.takeOver(req, reply);
    const handled = () =>
      this.entry.handle(nodeReq, res, req.body ?? null, {
        callerOf,
        who: () => Promise.resolve(key),
        logFields,
        track,
        network: 'tcp',
        catalog,
      });
    await this.operations.around(() => answeredBySdk(messages, nodeReq.headers), handled);
  }

  /**
   * A tool the caller may not call is the POST's 403, as a REST call's scope: before anything
   * is counted or runs (with OAuth, insufficient_scope naming the tool's scope).
   */
  private refuseForbiddenTool(catalog: McpCatalog, caller: Caller, messages: unknown[]): void {
    const forbidden = this.forbiddenTool(catalog, caller, messages);
    if (forbidden === undefined) return;
    throw this.challenges.insufficientScope({
      resource: 'mcp',
      bearerErrorCodes: true,
      scopes: [toolScope(forbidden)],
    });
  }

  /** The first tool of the POST's tools/calls that the caller may not call (a registered one). */
  private forbiddenTool(
    catalog: McpCatalog,
    caller: Caller,
    messages: unknown[],
  ): string | undefined {
    for (const message of messages) {
      if (!isPlainObject(message) || message.method !== 'tools/call') continue;
      const name = isPlainObject(message.params) ? message.params.name : undefined;
      const tool = typeof name === 'string' ? catalog.tool(name) : undefined;
      if (!tool) continue;
      if (!hasAnyScope(caller.scopes, toolScopes(tool))) return tool.name;
    }
  }

  /** Answers the POST with a JSON-RPC error (HTTP 400, or in-band): nothing of it runs. */
  private refuse(req: ApiRequest, reply: object, refusal: MessageRefusal): void {
    const { res } = this.exchange.takeOver(req, reply);
    res.statusCode = refusal.status ?? 400;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(refusalBody(refusal)));
  }
}
