import { ArgumentsHost, Catch, ExceptionFilter, Logger, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { HttpExchange } from '../http/http-exchange';
import { requestLogFields } from '../http/request-log';
import { RouteTable } from '../http/route-table';
import type { RequestScope } from '../http/request-scope';
import { IdempotentReplay } from './api-error';
import { STATUS_TEXT, type Answer, errorAnswer } from './answer';

/** Nest's own answer for a path no route matches: `Cannot GET /x`. */
const ROUTE_NOT_FOUND = /^Cannot [A-Z]+ /;

/** The one exception filter: whatever was thrown, the client gets `{detail}` and never a stack. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly routes: RouteTable,
    private readonly exchange: HttpExchange,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<object>();
    const res = ctx.getResponse<object>();
    const http = this.adapterHost.httpAdapter;
    if (exception instanceof IdempotentReplay && !http.isHeadersSent(res)) {
      this.exchange.setHeader(res, 'Idempotent-Replayed', 'true');
      this.exchange.setHeaders(res, exception.headers);
      this.adapterHost.httpAdapter.reply(res, exception.body, exception.getStatus());
      return;
    }
    this.send(res, this.answerFor(exception, req));
  }

  private send(res: object, answer: Answer): void {
    const http = this.adapterHost.httpAdapter;
    if (http.isHeadersSent(res)) {
      http.end(res);
      return;
    }
    this.exchange.setHeaders(res, answer.headers);
    http.reply(res, { detail: answer.detail }, answer.status);
  }

  private answerFor(exception: unknown, req: object): Answer {
    const path = this.exchange.path(req);
    if (exception instanceof NotFoundException && ROUTE_NOT_FOUND.test(exception.message)) {
      const allow = this.routes.allowedMethods(path);
      return allow.length
        ? { status: 405, detail: STATUS_TEXT[405], headers: { Allow: allow.join(', ') } }
        : { status: 404, detail: STATUS_TEXT[404], headers: {} };
    }
    const method = this.adapterHost.httpAdapter.getRequestMethod(req) as string;
    return errorAnswer(exception, this.logger, `${method} ${path}`, () =>
      requestLogFields(this.exchange.nodeRequest(req), (req as RequestScope).caller),
    );
  }
}
