import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  BearerErrorCodes,
  OAuthResource,
  Scopes,
  ANY_TOOL_SCOPE,
  hasScope,
  toolScope,
  AuthChallenges,
} from '../../auth';
import { CurrentCaller } from '../../subjects';
import type { ApiRequest, Caller } from '../../subjects';
import { requestLogFields } from '../../kernel/http/request-log';
import type { RequestScope } from '../../kernel/http/request-scope';
import { tracingOn } from '../../tracing';
import { HttpExchange } from '../../kernel/http/http-exchange';
import { CountsOwnRateLimit, CallControl } from '../../invocations';
import type { ToolCaller } from '../../invocations';
import { LimitsService } from '../../limits';
import { ToolRegistry } from '../../tools/index';
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

export const MCP_PATH = 'mcp';

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless, both revisions (2026-07-28 and the 2025 ones).
 * Every request is authenticated by the global guard and needs `services:execute`. Every JSON-RPC
 * message of the POST, notifications included, counts once against the key's rate limit, all or
 * nothing, before any runs (LimitsService.countMessages: a batch of 100 is 100 messages); a POST of one
 * tools/call that the fast path answers counts it in the call's own rate check, with its credits
 * (one round trip on Redis besides the key's read, as REST). A batch
 * with two requests of one id, and a message with an oversized `_meta`, are refused whole before
 * anything runs (mcp-messages.ts). The tools/calls of a batch run one after the other, each
 * authenticated as a request of its own: a key revoked during a batch stops the calls not yet
 * started. GET and DELETE have no route: the exception filter answers them 405 with `Allow: POST`.
 */
@ApiExcludeController()
@Controller(MCP_PATH)
export class McpController {
  constructor(
    private readonly entry: McpHttpEntry,
    private readonly lean: McpFastPath,
    private readonly limits: LimitsService,
    private readonly exchange: HttpExchange,
    private readonly cancels: McpCancels,
    private readonly challenges: AuthChallenges,
    private readonly registry: ToolRegistry,
    private readonly operations: McpOperations,
  ) {}

  @Post()
  @Scopes([ANY_TOOL_SCOPE])
  @BearerErrorCodes()
  @OAuthResource('mcp')
  @CountsOwnRateLimit()
  async handle(
    @CurrentCaller() key: Caller,
    @Req() req: ApiRequest,
    @Res() reply: object,
  ): Promise<void> {
    const messages = messagesOf(req.body);
    // Each message is timed by this POST (mcp_server_operation_duration_seconds, with its answer).
    (req as RequestScope).mcpMessages = messages;
    const duplicate = duplicateRequestId(messages) ?? initializeInBatch(req.body);
    if (duplicate) return this.refuse(req, reply, duplicate);
    // A tool the caller may not call is the POST's 403, as a REST call's scope: before anything
    // is counted or runs (with OAuth, insufficient_scope naming the tool's scope).
    const forbidden = this.forbiddenTool(key, messages);
    if (forbidden !== undefined) {
      throw this.challenges.insufficientScope({
        resource: 'mcp',
        bearerErrorCodes: true,
        scopes: [toolScope(forbidden)],
      });
    }
    const nodeReq = this.exchange.nodeRequest(req);
    const lean = messages.length === 1 ? this.lean.take(req.body, nodeReq.headers) : undefined;
    const refused = oversizedMeta(messages) ?? malformedInitialize(req.body);
    // One tools/call that the fast path answers counts its rate with its credits, in one step of
    // the store, as a REST call does. Any other POST pays every message's rate before any runs,
    // all or none (over HTTP a refusal is the POST's 429); one of no message at all (an empty
    // batch, a bare value) still costs one.
    const ownRate = !refused && lean !== undefined && this.lean.reachesRateStep(lean);
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
      });
    if (!tracingOn) return handled();
    await this.operations.around(answeredBySdk(messages, nodeReq.headers), handled);
  }

  /** The first tool of the POST's tools/calls that the caller may not call (a registered one). */
  private forbiddenTool(caller: Caller, messages: unknown[]): string | undefined {
    for (const message of messages) {
      if (!isPlainObject(message) || message.method !== 'tools/call') continue;
      const name = isPlainObject(message.params) ? message.params.name : undefined;
      if (typeof name !== 'string' || !this.registry.get(name)) continue;
      if (!hasScope(caller.scopes, toolScope(name))) return name;
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
