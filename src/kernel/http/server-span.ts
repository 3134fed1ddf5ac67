import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import type { RequestSpan } from '../common/tracing-gate';
import { pathOf } from './body';

const tracer = trace.getTracer('tool-invocation-service');

/** Paths whose calls are not traced: probes and scrapes, many a minute, telling nothing of a call. */
const UNTRACED_PATHS = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

/**
 * A request's SERVER span, after OpenTelemetry's HTTP semantic conventions, made by each adapter's
 * first hook through the tracing seam (`spans.request`, docs/observability.md): its parent is the caller's W3C trace
 * context (`traceparent`, `tracestate`, `baggage`), and the rest of the request runs in it. Why
 * not OpenTelemetry's HTTP instrumentation: docs/decisions.md, "Tracing".
 */
export class ServerSpan implements RequestSpan {
  private constructor(
    private readonly span: Span,
    private readonly method: string,
    /** The caller's context (its span and baggage), the new span's parent. */
    private readonly parent: Context,
  ) {}

  /** The request's span; none when the path is a probe's. */
  static start(req: IncomingMessage): ServerSpan | undefined {
    const path = pathOf(req.url);
    if (UNTRACED_PATHS.has(path)) return undefined;
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = req.method ?? 'GET';
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': path,
          'url.scheme': 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http',
          'network.protocol.version': req.httpVersion,
          ...(req.socket.remoteAddress ? { 'client.address': req.socket.remoteAddress } : {}),
          ...(req.headers['user-agent']
            ? { 'user_agent.original': req.headers['user-agent'] }
            : {}),
        },
      },
      parent,
    );
    return new ServerSpan(span, method, parent);
  }

  /** Runs the rest of the request (the adapter's next step) in the span's context. */
  within(next: () => void): void {
    context.with(trace.setSpan(this.parent, this.span), next);
  }

  /**
   * Ends the span once the answer has gone out: named `{method} {route}` by the route that matched,
   * its status, and `error.type` for a 5xx.
   */
  end(answer: { route: string; status: number }): void {
    if (answer.route !== 'unmatched') {
      this.span.updateName(`${this.method} ${answer.route}`);
      this.span.setAttribute('http.route', answer.route);
    }
    this.span.setAttribute('http.response.status_code', answer.status);
    if (answer.status >= 500) {
      this.span.setAttribute('error.type', String(answer.status));
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
  }
}
