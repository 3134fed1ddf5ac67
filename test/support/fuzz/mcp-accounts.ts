/**
 * What the MCP fuzz checks besides the answer itself: that a POST /mcp counted against its key's
 * rate limit exactly what the contract says, and against its quota only the tools/calls that reached
 * the quota step.
 *
 * The app's clock stands still for the suite (a fake clock), so a key's rate bucket never refills:
 * it only ever falls and every count is exact. The rate count is predicted from the request alone:
 * every JSON-RPC message of a POST counts once (a POST of none costs one), all or nothing (a POST
 * that needs more than remains is 429 and counts nothing), and nothing counts for a POST refused
 * before the count (front door, authentication, scope, a batch with two requests of one id). The
 * quota count is read from the answer: one for each tools/call answered with a result the tool's
 * pipeline reached the quota step for (it ran, or its arguments were refused by validation); none
 * for JSON-RPC errors (unknown tool, malformed call) nor for the refusals the pipeline makes before
 * the quota (idempotency, quota, authentication, arguments too deep). Both are read back after each
 * request: the key's X-RateLimit-Remaining on GET /api/v1/usage (which costs one), its `used` there
 * or on the admin's view of its usage.
 */
import { MAX_BODY_DEPTH } from '../../../src/kernel/http/body';
import { jsonDeeperThan } from '../../../src/kernel/http/json-depth';
import { isJsonMediaType } from '../../../src/kernel/http/body';
import { MAX_META_ENTRIES } from '../../../src/transports/mcp/mcp-messages';
import type { Outcome, RawResponse } from './client';
import { cut, isObject } from './client';
import type { Fuzzer } from './harness';
import type { McpFuzzRequest, Persona } from './mcp';

/** The levels a /mcp body may hold above the arguments (batch, message, params). */
const MCP_ENVELOPE_DEPTH = 3;
/** The small key's budget: 30 messages (its bucket never refills here) and 5 calls a day. */
const SMALL_RATE_LIMIT = 30;
const SMALL_DAILY_LIMIT = 5;
/** The main key's budget, which the suite never spends (PLAN_UNLIMITED_RATE_LIMIT). */
export const MAIN_RATE_LIMIT = 1_000_000;

interface Tracked {
  id: string;
  key: string;
  /** What is left in its rate bucket (which never refills here). */
  remaining: number;
  /** Its calls counted against today's quota. */
  used: number;
  day: string;
}

/** Texts of the isError results the pipeline answers before the quota step (never counted). */
const REFUSED_BEFORE_QUOTA = [
  '"loc":["header","Idempotency-Key"]',
  'A request with this Idempotency-Key is in progress',
  'Idempotency-Key reused with a different request',
  'Too many kept idempotent answers',
  'Daily request limit exceeded',
  'Monthly request limit exceeded',
  'is at capacity; retry shortly.',
  'Rate limit exceeded',
  'Invalid API key',
  'Not authenticated',
  'Insufficient permissions for this operation.',
  // Arguments deeper than 32 levels are refused before authentication, and not counted (as REST).
  'Input is nested too deeply',
];

/** The keys the MCP fuzz sends with, and what each has been counted. */
export class McpAccounts {
  private readonly tracked = new Map<string, Tracked>();
  private main: Tracked;
  private small: Tracked;
  private readOnly: string;
  private greetOnly: Tracked;
  private smallKeys = 0;

  constructor(private readonly fuzzer: Fuzzer) {}

  async start(): Promise<void> {
    this.main = await this.track({
      name: 'mcp-main',
      scope_template: 'standard',
      plan: 'unlimited',
    });
    this.small = await this.newSmallKey();
    this.readOnly = (
      await this.fuzzer.t.createKeyWithId({ name: 'mcp-ro', scope_template: 'read_only' })
    ).key;
    this.greetOnly = await this.track({
      name: 'mcp-greet-only',
      scopes: ['services:execute:greet'],
      plan: 'unlimited',
    });
  }

  /** The Authorization headers of a persona, as sent now. */
  authorization(persona: Persona): { key?: string; headers: [string, string][] } {
    const as = (key: string): [string, string] => ['Authorization', `Bearer ${key}`];
    switch (persona) {
      case 'main':
        return { key: this.main.key, headers: [as(this.main.key)] };
      case 'small':
        return { key: this.small.key, headers: [as(this.small.key)] };
      case 'readOnly':
        return { key: this.readOnly, headers: [as(this.readOnly)] };
      case 'greetOnly':
        return { key: this.greetOnly.key, headers: [as(this.greetOnly.key)] };
      case 'double':
        return { key: this.main.key, headers: [as(this.main.key), as(this.main.key)] };
      case 'bad':
        return { headers: [as(`sk_${'0'.repeat(64)}`)] };
      case 'none':
        return { headers: [] };
    }
  }

  /** What is wrong with the counts after `req` was answered `outcome`. */
  async verify(req: McpFuzzRequest, outcome: Outcome): Promise<string[]> {
    const problems: string[] = [];
    const res = outcome.kind === 'answer' ? outcome.res : undefined;
    const tracked = req.key === undefined ? undefined : this.tracked.get(req.key);
    const rate = predictedRate(req, tracked);
    if (rate.refused429 && res?.status !== 429) {
      problems.push(
        `the POST needs ${rate.needs} messages of a budget with ${tracked?.remaining} left: expected 429, got ${res?.status}`,
      );
    }
    if (!tracked) return problems;
    const calls = res ? quotaCounted(req, res) : { counted: 0, ids: [] };
    const before = { remaining: tracked.remaining, used: tracked.used };
    tracked.remaining -= rate.cost;
    tracked.used += calls.counted;
    const read = await this.read(tracked);
    if (read.day !== tracked.day) {
      // Past UTC midnight the quota starts again: nothing to compare.
      Object.assign(
        tracked,
        { used: read.used, day: read.day },
        read.remaining && { remaining: read.remaining.now },
      );
      return problems;
    }
    if (read.remaining && read.remaining.before !== tracked.remaining) {
      problems.push(
        `rate limit: the POST counted ${before.remaining - read.remaining.before} ` +
          `(remaining ${before.remaining} → ${read.remaining.before}), expected ${rate.cost}: ${rate.why}`,
      );
    }
    if (read.used !== tracked.used) {
      problems.push(
        `quota: ${read.used - before.used} counted (used ${before.used} → ${read.used}), expected ${calls.counted} ` +
          `(the tools/calls answered as having reached the quota step: ${JSON.stringify(calls.ids)})`,
      );
    }
    // What the service has from here on, whatever was expected.
    tracked.used = read.used;
    if (read.remaining) tracked.remaining = read.remaining.now;
    if (tracked === this.small && tracked.remaining < 3) this.small = await this.newSmallKey();
    return problems;
  }

  private async track(body: Record<string, unknown>): Promise<Tracked> {
    const { id, key } = await this.fuzzer.t.createKeyWithId(body);
    const tracked: Tracked = { id, key, remaining: 0, used: 0, day: '' };
    this.tracked.set(key, tracked);
    const read = await this.read({ ...tracked, remaining: 1 });
    Object.assign(tracked, { used: read.used, day: read.day, remaining: read.remaining?.now ?? 0 });
    return tracked;
  }

  /** A fresh small key: the one in use has too little budget left to go on being useful. */
  private newSmallKey(): Promise<Tracked> {
    return this.track({
      name: `mcp-small-${++this.smallKeys}`,
      scope_template: 'standard',
      plan: 'unlimited',
      rate_limit: SMALL_RATE_LIMIT,
      daily_limit: SMALL_DAILY_LIMIT,
    });
  }

  /**
   * The key's counts as the service has them: GET /api/v1/usage with the key itself while its
   * budget should allow one more request (its X-RateLimit-Remaining then tells what remained
   * before it, as that request is one message of the budget; a 429 tells none did), else the
   * admin's view of its usage (its quota only).
   */
  private async read(
    tracked: Tracked,
  ): Promise<{ remaining?: { before: number; now: number }; used: number; day: string }> {
    const admins = () => this.usage(`/api/v1/auth/api-keys/${tracked.id}/usage`);
    if (tracked.remaining < 1) return usageOf(await admins());
    const own = await this.usage('/api/v1/usage', tracked.key);
    if (own.status === 429) return { remaining: { before: 0, now: 0 }, ...usageOf(await admins()) };
    const now = Number(own.headers['x-ratelimit-remaining']?.[0]);
    return { remaining: { before: now + 1, now }, ...usageOf(own) };
  }

  private async usage(target: string, key = this.fuzzer.t.adminKey): Promise<RawResponse> {
    return this.fuzzer.answer({
      method: 'GET',
      target,
      headers: [['Authorization', `Bearer ${key}`]],
    });
  }
}

function usageOf(res: RawResponse): { used: number; day: string } {
  if (res.status !== 200) throw new Error(`reading a key's usage: ${res.status} ${cut(res.body)}`);
  const usage = JSON.parse(res.body) as { used: number; resets_at: string };
  return { used: usage.used, day: usage.resets_at };
}

interface RatePrediction {
  /** Messages counted against the key's rate budget. */
  cost: number;
  /** Messages the POST needs, when it reaches the count. */
  needs?: number;
  /** The POST needs more than remains: 429, nothing counted. */
  refused429: boolean;
  why: string;
}

/** What the POST counts against its key's rate budget, from the request alone. */
function predictedRate(req: McpFuzzRequest, tracked: Tracked | undefined): RatePrediction {
  const none = (why: string): RatePrediction => ({ cost: 0, refused429: false, why });
  const header = (name: string) => req.headers.find(([n]) => n.toLowerCase() === name)?.[1];
  const origin = header('origin');
  if (origin !== undefined && origin.toLowerCase() !== 'https://agent.example') {
    return none('an Origin not allowed is refused before authentication');
  }
  const raw = Buffer.from(req.body ?? '', 'utf8');
  if (raw.length && !isJsonMediaType(header('content-type'))) return none('415 at the front door');
  if (jsonDeeperThan(raw, MAX_BODY_DEPTH + MCP_ENVELOPE_DEPTH))
    return none('too deep: 400 while read');
  const body = parseBody(raw);
  if (body === NOT_JSON) return none('not JSON: 400 while read');
  if (req.persona !== 'main' && req.persona !== 'small' && req.persona !== 'greetOnly') {
    return none(`${req.persona}: refused at authentication or scope`);
  }
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  if (repeatsRequestId(messages))
    return none('two requests of one id: 400 -32600, nothing counted');
  if (Array.isArray(body) && messages.some((m) => isObject(m) && m.method === 'initialize'))
    return none('an initialize in a batch: 400 -32600, nothing counted');
  if (req.persona === 'greetOnly' && callsAnotherTool(messages))
    return none('a tools/call of a tool the key may not call: 403, nothing counted');
  const needs = Math.max(1, messages.length);
  if (tracked && needs > tracked.remaining) {
    return { cost: 0, needs, refused429: true, why: 'over the budget: 429, nothing counted' };
  }
  return { cost: needs, needs, refused429: false, why: `${messages.length} messages, each counts` };
}

const NOT_JSON = Symbol('not JSON');

/** The body as the service reads it: an empty one is `{}`, a byte-order mark is dropped. */
function parseBody(raw: Buffer): unknown {
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** Two requests (a method and an id) of one id, as the contract defines a duplicate. */
function repeatsRequestId(messages: unknown[]): boolean {
  if (messages.length < 2) return false;
  const seen = new Set<unknown>();
  for (const m of messages) {
    if (!isObject(m) || m.id === undefined || !('method' in m)) continue;
    if (seen.has(m.id)) return true;
    seen.add(m.id);
  }
  return false;
}

/** The fuzz app's tools (src/tools.ts), which a per-tool key may be refused. */
const REGISTERED_TOOLS = new Set(['greet', 'config_show', 'config_get', 'config_set', 'doctor']);

/** A tools/call of a registered tool other than greet: the greet-only key's POST is a 403. */
function callsAnotherTool(messages: unknown[]): boolean {
  return messages.some(
    (m) =>
      isObject(m) &&
      m.method === 'tools/call' &&
      isObject(m.params) &&
      typeof m.params.name === 'string' &&
      m.params.name !== 'greet' &&
      REGISTERED_TOOLS.has(m.params.name),
  );
}

/** A message whose `params._meta` holds more than 64 own entries: the POST runs nothing. */
function oversizedMeta(messages: unknown[]): boolean {
  return messages.some(
    (m) =>
      isObject(m) &&
      isObject(m.params) &&
      isObject(m.params._meta) &&
      Object.keys(m.params._meta).length > MAX_META_ENTRIES,
  );
}

/**
 * The tools/calls of the POST its answer shows as having reached the quota step: each answered
 * with a result that is not a refusal made before it. Only in a 200; a POST with an oversized
 * `_meta` runs nothing.
 */
function quotaCounted(req: McpFuzzRequest, res: RawResponse): { counted: number; ids: unknown[] } {
  const none = { counted: 0, ids: [] };
  if (res.status !== 200) return none;
  const body = parseBody(Buffer.from(req.body ?? '', 'utf8'));
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  if (oversizedMeta(messages)) return none;
  const calls = new Set(
    messages
      .filter((m) => isObject(m) && m.method === 'tools/call' && m.id !== undefined)
      .map((m) => idText((m as { id: unknown }).id)),
  );
  const answers = answerMessages(res.body);
  const ids: unknown[] = [];
  for (const answer of answers) {
    if (!isObject(answer) || !calls.has(idText(answer.id)) || !isObject(answer.result)) continue;
    if (answer.result.isError === true && refusedBeforeQuota(answer.result)) continue;
    ids.push(answer.id);
  }
  return { counted: ids.length, ids };
}

/**
 * The JSON-RPC messages of an answer: its JSON body (one message or a batch), or the `data:` of
 * each event of an SSE answer (a POST whose messages ask for progress).
 */
function answerMessages(body: string): unknown[] {
  const parse = (text: string): unknown[] => {
    try {
      const value = JSON.parse(text) as unknown;
      return Array.isArray(value) ? value : [value];
    } catch {
      return [];
    }
  };
  if (!body.startsWith('event:') && !body.startsWith('data:')) return parse(body);
  return body
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .flatMap((line) => parse(line.slice('data:'.length)));
}

const idText = (id: unknown) => `${typeof id}:${JSON.stringify(id)}`;

function refusedBeforeQuota(result: Record<string, unknown>): boolean {
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const text = content
    .map((c) => (isObject(c) && typeof c.text === 'string' ? c.text : ''))
    .join('\n');
  return REFUSED_BEFORE_QUOTA.some((refusal) => text.includes(refusal));
}
