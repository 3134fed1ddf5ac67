import { Injectable } from '@nestjs/common';
import { toolScopes } from '../../kernel/auth/scopes';
import { ApiError, IdempotentReplay } from '../../kernel/errors/api-error';
import { HttpExchange } from '../../kernel/http/http-exchange';
import type { ApiRequest } from '../../subjects';
import { ToolRegistry, ToolRunner } from '../../tools/index';
import {
  Accepted,
  AtCapacity,
  CallControl,
  invocationLocation,
  invocationView,
  LongRunningCalls,
  newInvocationId,
  ToolInvoker,
} from '../../invocations';
import type { CallIo, CallResponse, ClientWatch } from '../../invocations';
import { preferences } from './prefer';

/**
 * The REST side of a tool call (the ToolRunner the routes @ToolController() makes call): the
 * request read into a Call, the runtime's answer (ToolInvoker) written back, `Prefer:
 * respond-async` and its 202 with `Location`, and a client that goes away stopping the call.
 */
@Injectable()
export class ToolRoutes extends ToolRunner {
  constructor(
    private readonly invoker: ToolInvoker,
    private readonly registry: ToolRegistry,
    private readonly exchange: HttpExchange,
    private readonly longCalls: LongRunningCalls,
  ) {
    super();
  }

  /**
   * A tool's REST route: the answer's body, or a thrown refusal for the exception filter (a replay
   * too: IdempotentReplay); the headers its checks decided are set on `res` either way. A call
   * asked to run in the background (`Prefer: respond-async`, or a tool that always does) is
   * answered 202 with its invocation's view, unless it ends within the `wait` it asked for.
   */
  async serve(name: string, req: object, res: object): Promise<unknown> {
    const tool = this.registry.get(name);
    if (!tool) throw new ApiError(404, 'Not Found');
    const request = req as ApiRequest;
    const answer: CallResponse = { headers: {} };
    const io: CallIo = { control: new CallControl() };
    const prefer = preferences(request.headers.prefer);
    const mode = tool.runtime.async;
    if (mode === 'required' || (mode === 'allowed' && prefer.respondAsync)) {
      io.background = { id: newInvocationId(), waitMs: prefer.waitMs };
    } else {
      io.watch = this.clientWatch(res);
    }
    try {
      const body = await this.invoker
        .invokeCall(
          {
            transport: 'rest',
            authorization: this.exchange.headerValues(req, 'authorization'),
            client: request.ip ?? 'unknown',
            requestId: request.id,
            scopes: toolScopes(tool),
            tool: name,
            bearerErrorCodes: false,
            body: request.body,
            idempotencyKey: request.headers['idempotency-key'],
            background: io.background?.id,
          },
          tool,
          request.body,
          io,
          answer,
        )
        .catch((error: unknown) => this.currentAccepted(error));
      if (!(body instanceof Accepted)) return body;
      (res as { status(code: number): unknown }).status(202);
      this.exchange.setHeader(res, 'Location', invocationLocation(body.record.id));
      return invocationView(body.record);
    } catch (error) {
      if (error instanceof AtCapacity) request.refused = error.reason;
      throw error;
    } finally {
      request.caller = answer.caller;
      this.exchange.setHeaders(res, answer.headers);
    }
  }

  /** A replayed 202 shows the invocation as it stands now, with its `Location` (REST). */
  private async currentAccepted(error: unknown): Promise<never> {
    if (!(error instanceof IdempotentReplay) || error.getStatus() !== 202) throw error;
    const id = (error.body as { id?: unknown } | null)?.id;
    const record = typeof id === 'string' ? await this.longCalls.find(id) : undefined;
    throw new IdempotentReplay(202, record ? invocationView(record) : error.body, {
      Location: invocationLocation(String(id)),
    });
  }

  /** REST: the client going away before the answer stops the call (its signal aborts). */
  private clientWatch(res: object): ClientWatch {
    return (control) => {
      const node = this.exchange.nodeResponse(res);
      const gone = () => {
        if (!node.writableFinished) control.stop('client-gone');
      };
      node.once('close', gone);
      return () => node.off('close', gone);
    };
  }
}
