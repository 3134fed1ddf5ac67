/**
 * Calls of `npm run test:docker`: through nginx on the published port, straight to one replica
 * (node's fetch inside its container, through `docker-compose exec`), and a bounded load of greets.
 */
import { strict as assert } from 'node:assert';
import type { Compose } from './compose';

export interface Answer {
  status: number;
  text: string;
  /** The body as JSON; undefined when it is not JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface Request {
  key?: string;
  body?: unknown;
  accept?: string;
  /** How long the call may take (15 s by default). */
  timeoutMs?: number;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function headersOf({ key, body, accept }: Request): Record<string, string> {
  return {
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(accept ? { accept } : {}),
  };
}

/** A call through nginx. */
export async function call(
  base: string,
  method: string,
  path: string,
  request: Request = {},
): Promise<Answer> {
  // A timer of its own rather than AbortSignal.timeout's, which is unref'd: a call that hangs must
  // keep the process alive until it is aborted, not let it end as though all were done.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), request.timeoutMs ?? 15_000);
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: headersOf(request),
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: controller.signal,
    });
    const text = await response.text();
    return { status: response.status, text, json: parsed(text) };
  } finally {
    clearTimeout(timer);
  }
}

/** Asserts an answer's status, naming the call and showing the body when it differs. */
export function expectStatus(answer: Answer, status: number, what: string): Answer {
  assert.equal(answer.status, status, `${what}: ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer;
}

// Runs inside a replica's container: the image has node and no curl.
const IN_REPLICA = `
const a = JSON.parse(process.argv[1]);
fetch('http://127.0.0.1:8000' + a.path, { method: a.method, headers: a.headers, body: a.body })
  .then(async (r) => process.stdout.write(JSON.stringify({ status: r.status, text: await r.text() })))
  .catch((e) => { console.error(e); process.exit(1); });
`;

/** A call straight to one replica, past nginx. */
export async function callReplica(
  compose: Compose,
  service: string,
  method: string,
  path: string,
  request: Request = {},
): Promise<Answer> {
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const argument = JSON.stringify({ method, path, headers: headersOf(request), body });
  const out = await compose.exec(service, ['node', '-e', IN_REPLICA, argument]);
  const { status, text } = JSON.parse(out) as { status: number; text: string };
  return { status, text, json: parsed(text) };
}

export interface Outcome {
  /** When the call was sent and answered, in ms since the epoch. */
  started: number;
  ended: number;
  /** The HTTP status, or the error's code when no answer came. */
  status: number | string;
}

/**
 * Greets through nginx, `concurrency` at a time, until `stop()` says so or `maxCalls` were sent;
 * every outcome kept.
 */
export async function greetLoad(
  base: string,
  key: string,
  options: {
    concurrency: number;
    maxCalls: number;
    stop: () => boolean;
    /** Each worker's calls start at least this far apart (the key's rate limit stays unreached). */
    gapMs?: number;
  },
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let sent = 0;
  const worker = async () => {
    let previous = 0;
    while (!options.stop() && sent < options.maxCalls) {
      const wait = previous + (options.gapMs ?? 0) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      previous = Date.now();
      sent += 1;
      const started = Date.now();
      let status: number | string;
      try {
        const answer = await call(base, 'POST', '/api/v1/services/greet', {
          key,
          body: { name: 'Load' },
        });
        status = answer.status;
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        status = cause?.code ?? (error as Error).name;
      }
      outcomes.push({ started, ended: Date.now(), status });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return outcomes;
}

/** How many greets a replica's /metrics counts as successful since it started. */
export async function greetsServedBy(compose: Compose, service: string): Promise<number> {
  const metrics = await callReplica(compose, service, 'GET', '/metrics');
  const line = metrics.text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('tool_calls_total{') &&
        l.includes('tool="greet"') &&
        l.includes('outcome="success"'),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}
