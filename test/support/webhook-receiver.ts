import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { bearer, type TestApp } from './app';

/** One request a receiver got: its path and query, headers and body as sent. */
export interface ReceivedHook {
  url: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** What the receiver answers a request: a status, headers (Retry-After, Location). */
export interface HookAnswer {
  status: number;
  headers?: Record<string, string>;
  /** The answer waits for this (a receiver that takes its time). */
  after?: Promise<void>;
}

/**
 * A webhook receiver on loopback, as a customer runs one: it records every request and answers
 * from a script (200 once the script is spent). `verify` checks a request with the
 * `standardwebhooks` package, as receivers' libraries do.
 */
export class WebhookReceiver {
  readonly received: ReceivedHook[] = [];
  private readonly script: HookAnswer[] = [];
  private waiters: (() => void)[] = [];
  /** While set, a request past the script waits for it (a receiver that never answers). */
  private hold?: Promise<void>;
  connections = 0;

  private constructor(private readonly server: Server) {}

  static start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('connection', () => receiver.connections++);
    server.on('request', (req, res) => receiver.take(req, res));
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(receiver)));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** The next requests get these answers, in order. */
  answer(...answers: HookAnswer[]): void {
    this.script.push(...answers);
  }

  /**
   * From now on every request past the script is accepted and read, and never answered (a hung
   * receiver) until the function returned is called: then each held one is answered 200.
   */
  hang(): () => void {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    this.hold = held;
    return () => {
      if (this.hold === held) this.hold = undefined;
      release();
    };
  }

  /** Resolves once `count` requests have come (at most `ms`, then rejects with what came). */
  async waitFor(count: number, ms = 10_000): Promise<ReceivedHook[]> {
    const deadline = Date.now() + ms;
    while (this.received.length < count) {
      if (Date.now() > deadline) {
        throw new Error(`expected ${count} webhook requests, got ${this.received.length}`);
      }
      await new Promise<void>((wake) => {
        this.waiters.push(wake);
        setTimeout(wake, 50);
      });
    }
    return this.received.slice(0, count);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }

  private take(req: IncomingMessage, res: import('node:http').ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name] = value;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      this.received.push({ url: req.url ?? '', headers, body, at: Date.now() });
      const answer = this.script.shift() ?? { status: 200, after: this.hold };
      void (answer.after ?? Promise.resolve()).then(() =>
        res.writeHead(answer.status, answer.headers).end(),
      );
      const waiters = this.waiters;
      this.waiters = [];
      waiters.forEach((wake) => wake());
    });
  }
}

/** The event a request carries, verified with `secret` (throws when the signature is wrong). */
export function verifiedEvent(
  hook: ReceivedHook,
  secret: string,
): {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
} {
  return new Webhook(secret).verify(hook.body, hook.headers) as ReturnType<typeof verifiedEvent>;
}

/**
 * Whether one of the request's signatures is `secret`'s, whatever its timestamp (a test that moves
 * the service's clock signs at that time, which `verify` would refuse as too old or too new).
 */
export function signedWith(hook: ReceivedHook, secret: string): boolean {
  const at = new Date(Number(hook.headers['webhook-timestamp']) * 1000);
  const expected = new Webhook(secret).sign(hook.headers['webhook-id'], at, hook.body);
  return hook.headers['webhook-signature'].split(' ').includes(expected);
}

/** A delivery as `GET /api/v1/webhooks/<id>/deliveries` lists it. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  type: string;
  attempt: number;
  status: string;
  response_status: number | null;
  error: string | null;
  at: string;
  next_attempt_at: string | null;
}

/** An endpoint's deliveries, newest first, once `done` holds of them (polled; at most 10 s). */
export async function deliveriesWhen(
  t: TestApp,
  id: string,
  done: (list: DeliveryRow[]) => boolean,
): Promise<DeliveryRow[]> {
  const read = async () =>
    (await t.http().get(`/api/v1/webhooks/${id}/deliveries`).set(bearer(t.adminKey)).expect(200))
      .body.deliveries as DeliveryRow[];
  for (let i = 0; i < 200; i++) {
    const list = await read();
    if (done(list)) return list;
    await new Promise((wake) => setTimeout(wake, 50));
  }
  throw new Error(`deliveries never settled: ${JSON.stringify(await read())}`);
}
