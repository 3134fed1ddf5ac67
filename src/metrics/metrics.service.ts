import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, HistogramConfiguration, Registry } from 'prom-client';
import type { CapacityOutcome } from '../kernel/http/request-scope';

/** How a tool call ended, from its status code: a small fixed set, fit for a label. */
export type ToolOutcome =
  | 'success'
  | 'invalid_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'client_error'
  | 'error'
  | CapacityOutcome;

const OUTCOME_BY_STATUS: Record<number, ToolOutcome> = {
  400: 'invalid_request',
  413: 'invalid_request',
  415: 'invalid_request',
  401: 'unauthenticated',
  402: 'quota_exceeded',
  403: 'forbidden',
  429: 'rate_limited',
};

export function toolOutcome(status: number): ToolOutcome {
  if (status < 400) return 'success';
  if (status >= 500) return 'error';
  return OUTCOME_BY_STATUS[status] ?? 'client_error';
}

/**
 * A histogram, and beside it the `*_total` counter that is its count by the same labels, read from
 * it at each scrape: what is timed is observed once, not also counted (what an observation costs
 * a call: docs/performance.md).
 */
function timedAndCounted<L extends string>(
  timed: HistogramConfiguration<L>,
  counted: { name: string; help: string },
): Histogram<L> {
  const histogram = new Histogram(timed);
  const count = `${timed.name}_count`;
  new Counter<L>({
    ...counted,
    labelNames: timed.labelNames,
    registers: timed.registers,
    async collect() {
      this.reset();
      for (const sample of (await histogram.get()).values) {
        if (sample.metricName === count) this.inc(sample.labels, sample.value);
      }
    },
  });
  return histogram;
}

/** Who was limited: a key over its rate, or an address over its failed authentications. */
export type RateLimitKind = 'key' | 'auth';

/**
 * The service's own metrics, on the registry of this application (not prom-client's global one, so
 * that several applications in one process keep separate counts). Labels are route templates, tool
 * names, status codes and small fixed sets: never a key, a key id or a raw URL.
 */
@Injectable()
export class MetricsService {
  private readonly duration: Histogram<'method' | 'route' | 'status_code'>;
  private readonly toolDuration: Histogram<'tool' | 'outcome'>;
  private readonly mcpOperations: Histogram<'method'>;
  private readonly toolFailures: Counter<'tool'>;
  private readonly quotaRejections: Counter<'tool'>;
  private readonly rateLimitRejections: Counter<'kind'>;
  private readonly capacityRejections: Counter<'tool'>;
  private readonly timeouts: Counter<'tool'>;
  private readonly abandoned: Counter<'tool'>;

  constructor(readonly registry: Registry) {
    const registers = [registry];
    this.duration = timedAndCounted(
      {
        name: 'http_request_duration_seconds',
        help: 'Time from receiving a request to finishing its answer, by method, route template and status code.',
        labelNames: ['method', 'route', 'status_code'],
        registers,
      },
      {
        name: 'http_requests_total',
        help: 'HTTP requests answered, by method, route template and status code.',
      },
    );
    this.toolDuration = timedAndCounted(
      {
        name: 'tool_call_duration_seconds',
        help: 'Tool calls by how long they took to answer (REST and MCP), by tool and outcome.',
        labelNames: ['tool', 'outcome'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
        registers,
      },
      {
        name: 'tool_calls_total',
        help: 'Calls of each tool, by outcome (success, invalid_request, unauthenticated, forbidden, rate_limited, quota_exceeded, client_error, error; capacity and fair_share: 503s of a full tool and of a caller past its share).',
      },
    );
    this.mcpOperations = new Histogram({
      name: 'mcp_server_operation_duration_seconds',
      help: 'MCP messages (JSON-RPC requests and notifications, over HTTP) by how long they took to answer, by method.',
      labelNames: ['method'],
      // OpenTelemetry's buckets for mcp.server.operation.duration.
      buckets: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.toolFailures = new Counter({
      name: 'tool_failures_total',
      help: 'Tool calls that failed on the server side (5xx).',
      labelNames: ['tool'],
      registers,
    });
    this.quotaRejections = new Counter({
      name: 'quota_rejections_total',
      help: 'Tool calls refused because the daily quota was used up (402).',
      labelNames: ['tool'],
      registers,
    });
    this.rateLimitRejections = new Counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests refused by a rate limit (429): kind "key" (per-key limit) or "auth" (failed authentications per address).',
      labelNames: ['kind'],
      registers,
    });
    this.capacityRejections = new Counter({
      name: 'tool_capacity_rejections_total',
      help: 'Tool calls refused because the tool had no free slot and its queue was full, or their caller held its fair share of it (503).',
      labelNames: ['tool'],
      registers,
    });
    this.timeouts = new Counter({
      name: 'tool_timeouts_total',
      help: 'Tool calls answered 504: the tool did not finish within its deadline.',
      labelNames: ['tool'],
      registers,
    });
    this.abandoned = new Counter({
      name: 'tool_calls_abandoned_total',
      help: 'Tool calls answered (504, cancelled, client gone) while their handler still ran: it keeps its slot until it settles.',
      labelNames: ['tool'],
      registers,
    });
    // Present from the start, so that a dashboard's rate() sees the first rejection.
    for (const kind of ['key', 'auth'] as const) this.rateLimitRejections.labels(kind).inc(0);
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.duration.observe({ method, route, status_code: String(status) }, seconds);
  }

  /**
   * One tool call, whatever the transport (HTTP or MCP), by the status it was answered with, or
   * by the outcome its status does not tell (a 503 at capacity or past a fair share), and how
   * long it took to answer.
   */
  observeToolCall(tool: string, status: number, seconds: number, refused?: CapacityOutcome): void {
    const outcome = refused ?? toolOutcome(status);
    this.toolDuration.observe({ tool, outcome }, seconds);
    if (status >= 500) this.toolFailures.inc({ tool });
    if (outcome === 'quota_exceeded') this.quotaRejections.inc({ tool });
  }

  /** One MCP message answered: its method and how long it took. */
  observeMcpOperation(method: string, seconds: number): void {
    this.mcpOperations.observe({ method }, seconds);
  }

  observeRateLimited(kind: RateLimitKind): void {
    this.rateLimitRejections.inc({ kind });
  }

  observeAtCapacity(tool: string): void {
    this.capacityRejections.inc({ tool });
  }

  observeTimeout(tool: string): void {
    this.timeouts.inc({ tool });
  }

  observeAbandoned(tool: string): void {
    this.abandoned.inc({ tool });
  }

  /**
   * Tool calls holding a slot (running, or answered but not yet settled) and waiting for one, per
   * tool, read from `read` at each scrape.
   */
  gaugeToolSlots(read: () => { tool: string; inFlight: number; queued: number }[]): void {
    const registers = [this.registry];
    new Gauge({
      name: 'tool_calls_in_flight',
      help: 'Tool calls holding a slot on this instance (running, or answered but still settling).',
      labelNames: ['tool'],
      registers,
      collect() {
        this.reset();
        for (const { tool, inFlight } of read()) this.set({ tool }, inFlight);
      },
    });
    new Gauge({
      name: 'tool_calls_queued',
      help: 'Tool calls waiting for a slot on this instance.',
      labelNames: ['tool'],
      registers,
      collect() {
        this.reset();
        for (const { tool, queued } of read()) this.set({ tool }, queued);
      },
    });
  }
}
