/**
 * The webhook case of `bench/adversarial.ts`: how long a healthy endpoint's events take to arrive,
 * first alone, then beside a hung receiver (accepts every request, never answers) and a flood
 * (an endpoint with hundreds of events queued whose receiver takes a second each). It measures and
 * prints; it asserts nothing. Every receiver is in this process, on 127.0.0.1; the service is the
 * caller's (its default webhook settings, WEBHOOK_ALLOW_PRIVATE=true).
 *
 * Settings: BENCH_ADV_WEBHOOK_SECONDS (20: how long healthy events are sent beside the others, 5 a
 * second; the quiet phase is a quarter of it), BENCH_ADV_WEBHOOK_HUNG (60 deliveries queued to the
 * hung receiver), BENCH_ADV_WEBHOOK_FLOOD (340 to the flood), BENCH_ADV_WEBHOOK_DRAIN_S (60: how
 * long the last healthy events may take before the phase ends without them).
 */
import { createServer, request, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { num, sleep } from './lib';

const SECONDS = num('BENCH_ADV_WEBHOOK_SECONDS', 20);
const HUNG = num('BENCH_ADV_WEBHOOK_HUNG', 60);
const FLOOD = num('BENCH_ADV_WEBHOOK_FLOOD', 340);
const DRAIN_S = num('BENCH_ADV_WEBHOOK_DRAIN_S', 60);
/** Healthy events a second: an ordinary key's async calls, as the red team's run made them. */
const RATE = 5;
/** The flood's receiver answers each request after this long. */
const FLOOD_ANSWER_MS = 1000;

/** The environment the service needs for receivers on loopback. */
export const WEBHOOK_BENCH_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true' };

/** A receiver on loopback: counts requests, notes when each `webhook-id` came, answers by `how`. */
class Receiver {
  readonly arrived = new Map<string, number>();
  requests = 0;
  private readonly open = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {}

  static start(how: 'at-once' | 'slow' | 'never'): Promise<Receiver> {
    const server = createServer();
    const receiver = new Receiver(server);
    server.on('request', (req, res) => {
      req.resume();
      req.on('end', () => {
        receiver.requests++;
        receiver.arrived.set(String(req.headers['webhook-id']), performance.now());
        receiver.open.add(res);
        const answer = () => {
          receiver.open.delete(res);
          res.writeHead(200).end();
        };
        if (how === 'at-once') answer();
        else if (how === 'slow') setTimeout(answer, FLOOD_ANSWER_MS).unref();
      });
    });
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(receiver)));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }
}

interface Answer {
  status: number;
  body: string;
}

function call(port: number, key: string, method: string, path: string, body?: object) {
  return new Promise<Answer>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          Authorization: `Bearer ${key}`,
          ...(payload ? { 'Content-Type': 'application/json' } : {}),
        },
        timeout: 30_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** One phase's healthy events: how many arrived, their delay from being stored to arriving. */
export interface DelayFigures {
  sent: number;
  arrived: number;
  p50Ms?: number;
  maxMs?: number;
}

export interface WebhookIsolation {
  quiet: DelayFigures;
  beside: DelayFigures;
  hungRequests: number;
  floodRequests: number;
  pendingAtEnd?: number;
  wallClockS: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? undefined
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/**
 * The case on a started service (`port`, an admin key): three endpoints, then the healthy one's
 * events alone, then beside the hung receiver's and the flood's queued deliveries.
 */
export async function webhookIsolation(port: number, admin: string): Promise<WebhookIsolation> {
  const started = performance.now();
  const [healthy, hung, flood] = await Promise.all([
    Receiver.start('at-once'),
    Receiver.start('never'),
    Receiver.start('slow'),
  ]);
  try {
    const endpoint = async (receiver: Receiver) => {
      const answer = await call(port, admin, 'POST', '/api/v1/webhooks', {
        url: receiver.url,
        events: ['webhook.test'],
      });
      if (answer.status !== 201) throw new Error(`endpoint: ${answer.status} ${answer.body}`);
      return (JSON.parse(answer.body) as { id: string }).id;
    };
    const [healthyId, hungId, floodId] = [
      await endpoint(healthy),
      await endpoint(hung),
      await endpoint(flood),
    ];
    const quiet = await healthyPhase(port, admin, healthyId, healthy, SECONDS / 4);
    await queue(port, admin, hungId, HUNG);
    await queue(port, admin, floodId, FLOOD);
    const beside = await healthyPhase(port, admin, healthyId, healthy, SECONDS);
    const metrics = await call(port, admin, 'GET', '/metrics');
    const pending = /^webhook_outbox_pending (\S+)$/m.exec(metrics.body)?.[1];
    return {
      quiet,
      beside,
      hungRequests: hung.requests,
      floodRequests: flood.requests,
      pendingAtEnd: pending === undefined ? undefined : Number(pending),
      wallClockS: Math.round((performance.now() - started) / 1000),
    };
  } finally {
    await Promise.all([healthy.close(), hung.close(), flood.close()]);
  }
}

/** `count` test events to the endpoint, 8 requests at a time. */
async function queue(port: number, admin: string, id: string, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      await call(port, admin, 'POST', `/api/v1/webhooks/${id}/test`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** RATE test events a second to the healthy endpoint for `seconds`; then their delays. */
async function healthyPhase(
  port: number,
  admin: string,
  id: string,
  receiver: Receiver,
  seconds: number,
): Promise<DelayFigures> {
  const stored = new Map<string, number>();
  const begin = performance.now();
  for (let i = 0; i < seconds * RATE; i++) {
    await sleep(Math.max(0, begin + (i * 1000) / RATE - performance.now()));
    const answer = await call(port, admin, 'POST', `/api/v1/webhooks/${id}/test`);
    if (answer.status === 202) {
      stored.set((JSON.parse(answer.body) as { event_id: string }).event_id, performance.now());
    }
  }
  const deadline = performance.now() + DRAIN_S * 1000;
  const allArrived = () => [...stored.keys()].every((event) => receiver.arrived.has(event));
  while (!allArrived() && performance.now() < deadline) await sleep(50);
  const delays = [...stored]
    .filter(([event]) => receiver.arrived.has(event))
    .map(([event, at]) => (receiver.arrived.get(event) ?? at) - at)
    .sort((a, b) => a - b);
  return {
    sent: stored.size,
    arrived: delays.length,
    p50Ms: percentile(delays, 0.5),
    maxMs: delays.at(-1),
  };
}

const ms = (x: number | undefined) => (x === undefined ? '–' : `${Math.round(x)} ms`);

/** One line per store: the healthy endpoint's delay alone and beside the others. */
export function webhookTable(rows: { store: string; result: WebhookIsolation }[]): string {
  return [
    '| store | healthy alone: arrived, p50 / max | beside a hung receiver and a flood: arrived, p50 / max | hung receiver: requests held | flood: requests | outbox at the end |',
    '|---|---|---|---|---|---|',
    ...rows
      .map(({ store, result: r }) =>
        [
          store,
          `${r.quiet.arrived} of ${r.quiet.sent}, ${ms(r.quiet.p50Ms)} / ${ms(r.quiet.maxMs)}`,
          `${r.beside.arrived} of ${r.beside.sent}, ${ms(r.beside.p50Ms)} / ${ms(r.beside.maxMs)}`,
          String(r.hungRequests),
          String(r.floodRequests),
          r.pendingAtEnd === undefined ? '–' : String(r.pendingAtEnd),
        ].join(' | '),
      )
      .map((line) => `| ${line} |`),
  ].join('\n');
}
