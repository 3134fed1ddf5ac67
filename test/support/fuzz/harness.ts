/**
 * The fuzz suite's harness: the app under fuzzing, the properties every answer is checked for, the
 * fixed seed and time limits, the FUZZ_REPORT=all report, and the state it must be left in.
 */
import fc from 'fast-check';
import { STATUS_CODES } from 'node:http';
import { relative } from 'node:path';
import { startApp, TestApp, TestAppOptions, listenOnLoopback } from '../app';
import {
  ANSWER_TIMEOUT_MS,
  cut,
  describeOutcome,
  describeRequest,
  errorBodyProblem,
  FuzzRequest,
  jsonRpcInternalError,
  Outcome,
  RawResponse,
  send,
} from './client';

const DEFAULT_SEED = 20250611;
export const SEED = seedFrom(process.env.FUZZ_SEED);
const REPORT_ALL = process.env.FUZZ_REPORT === 'all';
/** Each property stops after this long, shrinking included (a failure found is still reported). */
const PROPERTY_TIME_LIMIT_MS = 3500;

function seedFrom(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got '${raw}'`);
  return seed | 0;
}

/** The command that runs the spec of the current test again with this seed. */
function rerunCommand(): string {
  const spec = relative(process.cwd(), expect.getState().testPath ?? 'test/http/fuzz.e2e-spec.ts');
  return `FUZZ_SEED=${SEED} npx jest --config jest.config.js ${spec} --selectProjects e2e`;
}

/**
 * What a property adds to the checks of every answer: `prepare` turns the generated request into
 * the one sent (what must be fresh on every send, shrinking included), `verify` lists what is wrong
 * after its answer (a count the answer does not explain, say).
 */
export interface Extra<R extends FuzzRequest> {
  prepare?: (req: R) => R;
  verify?: (req: R, outcome: Outcome) => Promise<string[]>;
}

interface Failure {
  signature: string;
  text: string;
  size: number;
}

/** The application under fuzzing, listening on a loopback port, and the checks run against it. */
export class Fuzzer {
  t: TestApp;
  port: number;
  private readonly uncaught: unknown[] = [];
  /** FUZZ_REPORT=all: every distinct failure of a property, with its smallest example. */
  private readonly failures = new Map<string, Failure>();
  /** How often each status (or no-answer, timeout) came back, per property. */
  private readonly statuses = new Map<string, number>();
  private readonly protoSnapshots: { name: string; proto: object; keys: string[] }[] = [];
  private configBefore: unknown;
  /** The run under way: fast-check leaves one running when the time limit interrupts it. */
  private running: Promise<void> = Promise.resolve();

  /**
   * `env`: settings of the app under fuzzing beside the suite's own (a higher rate, say);
   * `options`: what else the app is started with (a clock of the suite's, say).
   */
  constructor(
    private readonly env: Record<string, string> = {},
    private readonly options: Pick<TestAppOptions, 'configure'> = {},
  ) {}

  /** Snapshots the prototypes, captures uncaught exceptions, starts the app, reads its config. */
  async start(): Promise<void> {
    for (const [name, proto] of [
      ['Object.prototype (test realm)', Object.prototype],
      ['Array.prototype (test realm)', Array.prototype],
      ['Function.prototype (test realm)', Function.prototype],
      // Objects made by Node itself (req.headers, querystring) belong to the outer realm.
      ['Object.prototype (Node realm)', Object.getPrototypeOf(STATUS_CODES)],
    ] as [string, object][]) {
      if (proto)
        this.protoSnapshots.push({ name, proto, keys: Reflect.ownKeys(proto).map(String).sort() });
    }
    process.setUncaughtExceptionCaptureCallback((error) => this.uncaught.push(error));
    this.t = await startApp({
      env: {
        MCP_ALLOWED_ORIGINS: 'https://agent.example',
        AUTH_FAILURE_LIMIT: '1000000',
        PLAN_UNLIMITED_RATE_LIMIT: '1000000',
        ...this.env,
      },
      ...this.options,
    });
    this.port = await listenOnLoopback(this.t.app);
    const shown = await this.answer(this.tool('config_show', {}));
    expect(shown.status).toBe(200);
    this.configBefore = JSON.parse(shown.body);
  }

  async close(): Promise<void> {
    try {
      if (this.t) await this.t.close();
    } finally {
      process.setUncaughtExceptionCaptureCallback(null);
    }
  }

  admin(): [string, string][] {
    return [['Authorization', `Bearer ${this.t.adminKey}`]];
  }

  tool(name: string, body: unknown): FuzzRequest {
    return {
      method: 'POST',
      target: `/api/v1/services/${name}`,
      headers: [...this.admin(), ['Content-Type', 'application/json']],
      body: JSON.stringify(body),
    };
  }

  async answer(req: FuzzRequest): Promise<RawResponse> {
    const outcome = await send(this.port, req);
    if (outcome.kind !== 'answer')
      throw new Error(`${describeRequest(req)}\n→ ${describeOutcome(outcome)}`);
    return outcome.res;
  }

  /** The errors the server logged since line `from` of its log: a summary, then the lines. */
  private serverErrors(from: number): string {
    const lines = this.t.logs.lines
      .slice(from)
      .filter((line) => /"level":"(error|fatal)"/.test(line));
    const summary = lines.map((line) => {
      const { err } = JSON.parse(line) as { err?: { type?: string; message?: string } };
      return err ? `${err.type}: ${err.message}` : 'no error object';
    });
    const details = lines.map((line) => `\n  server log: ${cut(line, 1500)}`).join('');
    return `${summary.length ? ` (server logged ${summary.join('; ')})` : ''}${details}`;
  }

  private uncaughtText(): string {
    return this.uncaught
      .map((e) =>
        e instanceof Error
          ? (e.stack ?? String(e)).split('\n').slice(0, 8).join('\n    ')
          : String(e),
      )
      .join('\n  ');
  }

  /** Sends one generated request and checks every property; throws what is wrong. */
  private async exercise<R extends FuzzRequest>(generated: R, extra: Extra<R>): Promise<void> {
    const { port, uncaught, statuses } = this;
    uncaught.length = 0;
    const logged = this.t.logs.lines.length;
    const req = extra.prepare ? extra.prepare(generated) : generated;
    const outcome = await send(port, req);
    const problems: string[] = [];
    let kind = outcome.kind as string;
    if (outcome.kind === 'answer') kind = String(outcome.res.status);
    statuses.set(kind, (statuses.get(kind) ?? 0) + 1);
    if (outcome.kind === 'timeout')
      problems.push(`no answer within ${ANSWER_TIMEOUT_MS} ms (hang)`);
    if (outcome.kind === 'no-answer') {
      problems.push(
        `connection closed without an answer${outcome.error ? ` (${outcome.error})` : ''}`,
      );
    }
    if (outcome.kind === 'answer') {
      const { res } = outcome;
      if (res.status >= 500) problems.push(`a ${res.status}${this.serverErrors(logged)}`);
      const internal = jsonRpcInternalError(res);
      if (internal) problems.push(internal);
      if (res.status >= 400 && req.method !== 'HEAD') {
        const problem = errorBodyProblem(res);
        if (problem) problems.push(problem);
      }
    }
    // Also a barrier: by the time /health answers, the request's 'finish' handlers have run.
    const health = await send(port, { method: 'GET', target: '/health', headers: [] });
    if (health.kind !== 'answer' || health.res.status !== 200) {
      problems.push(`GET /health afterwards: ${describeOutcome(health)}`);
    }
    if (extra.verify) problems.push(...(await extra.verify(req, outcome)));
    if (uncaught.length)
      problems.push(
        `uncaught exception in the server (would end the process):\n  ${this.uncaughtText()}`,
      );
    if (!problems.length) return;
    const text =
      `${problems.join('\n')}\nrequest:\n${describeRequest(req)}\nanswer: ${describeOutcome(outcome)}`
        .split(this.t.adminKey)
        .join('<admin key>');
    if (!REPORT_ALL) throw new Error(text);
    const signature = `${kind} ${problems.map(signatureOf).join(' | ')}`;
    const size = describeRequest(req).length;
    const known = this.failures.get(signature);
    if (!known || size < known.size) this.failures.set(signature, { signature, text, size });
  }

  /**
   * Runs the property over `numRuns` generated requests (fixed seed, time limit). With
   * FUZZ_REPORT=all it runs them all and then lists each distinct failure it found. `extra` adds
   * the property's own checks to those of every answer.
   */
  async check<R extends FuzzRequest>(
    arbitrary: fc.Arbitrary<R>,
    numRuns: number,
    extra: Extra<R> = {},
  ): Promise<void> {
    const property = fc.asyncProperty(arbitrary, (req) => {
      this.running = this.exercise(req, extra);
      return this.running;
    });
    const started = Date.now();
    const details = await fc.check(property, {
      seed: SEED,
      numRuns,
      interruptAfterTimeLimit: REPORT_ALL ? undefined : PROPERTY_TIME_LIMIT_MS,
      includeErrorInReport: true,
    });
    if (details.failed) {
      const report = (await fc.asyncDefaultReportMessage(details)) ?? 'Property failed';
      throw new Error(`${report}\n\nSeed ${SEED}. Re-run exactly this with:\n  ${rerunCommand()}`);
    }
    // At the time limit fast-check stops waiting for the run under way, which still sends, counts
    // and checks: it ends here, and its failure is the property's, before anything else is sent.
    await this.running;
    if (details.interrupted || REPORT_ALL) {
      const { currentTestName } = expect.getState();
      process.stderr.write(
        `[fuzz] ${currentTestName}: ${details.numRuns} of ${numRuns} runs in ${Date.now() - started} ms${details.interrupted ? ' (time limit reached)' : ''}; statuses ${JSON.stringify(Object.fromEntries([...this.statuses].sort()))}\n`,
      );
    }
    this.statuses.clear();
    if (REPORT_ALL && this.failures.size) {
      const list = [...this.failures.values()].map(
        (f, i) => `#${i + 1} [${f.signature}]\n${f.text}`,
      );
      const count = this.failures.size;
      this.failures.clear();
      throw new Error(`${count} distinct failures (seed ${SEED}):\n\n${list.join('\n\n')}`);
    }
  }

  /** The app still answers, greet works, no prototype is polluted and config_show is unchanged. */
  async expectUnharmed(): Promise<void> {
    this.uncaught.length = 0;
    const health = await this.answer({ method: 'GET', target: '/health', headers: [] });
    expect(health.status).toBe(200);
    const greet = await this.answer(this.tool('greet', { name: 'Alice' }));
    expect({ status: greet.status, body: JSON.parse(greet.body) as unknown }).toEqual({
      status: 200,
      body: { message: 'Hello, Alice!', times: 1 },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    for (const { name, proto, keys } of this.protoSnapshots) {
      expect({
        name,
        polluted: (Object.create(proto) as Record<string, unknown>).polluted,
      }).toEqual({ name, polluted: undefined });
      expect({ name, keys: Reflect.ownKeys(proto).map(String).sort() }).toEqual({ name, keys });
    }
    const shown = await this.answer(this.tool('config_show', {}));
    expect(shown.status).toBe(200);
    expect(JSON.parse(shown.body)).toEqual(this.configBefore);
    expect(this.uncaughtText()).toBe('');
  }
}

/** A failure's kind without what varies between examples (ids, lengths, counts). */
function signatureOf(problem: string): string {
  return problem
    .split('\n')
    .slice(0, problem.startsWith('uncaught') ? 2 : 1)
    .join(' ')
    .replace(/server log:.*/, '')
    .replace(/: (\{|"|\[).*$/, '')
    .replace(/'.*'/g, "'…'")
    .replace(/[0-9a-f-]{36}/g, '<id>')
    .trim();
}
