/**
 * What a pipeline target sends, as data: the request kinds (REST greet with a key, a greet
 * `tools/call` over MCP in each protocol era, REST greet with a bearer token that is not a key) and
 * the environment variants (the service started with extra environment or a CONFIG_FILE). A target
 * id is `[<variant>-][<kind>-]<adapter>-<store>`: `express-sqlite`, `mcp2025-fastify-redis`,
 * `credits-express-sqlite`. A new kind or variant is one entry below; its ids, its twin against a
 * baseline build and its goals follow from the entry.
 */
export type Adapter = 'express' | 'fastify';
export type StoreKind = 'sqlite' | 'redis';
export const ADAPTERS: readonly Adapter[] = ['express', 'fastify'];
export const STORES: readonly StoreKind[] = ['sqlite', 'redis'];

export const GREET = '/api/v1/services/greet';
export const GREET_BODY = JSON.stringify({ name: 'Alice', shout: true });

/** A goal of a kind against REST greet with a key on the same adapter, store and variant. */
export interface KindGoal {
  /** req/s at least this × REST's. */
  minRps: number;
  /** Printed beside the goal: met when the ratio reaches it too. */
  moonshotRps?: number;
  /** p99 at most this × REST's. */
  maxP99?: number;
}

export interface RequestKind {
  /** The id's prefix; '' for REST greet with a key. */
  prefix: string;
  label: string;
  path: string;
  body: string;
  /** Headers besides Authorization (added from the target's key or token). */
  headers: Record<string, string>;
  /** `key`: the target's API key; `token`: the token source's value (BENCH_TOKEN_CMD). */
  auth: 'key' | 'token';
  /** Why an answer with a 2xx status is a failure all the same (read once, after the warm-up). */
  failure?: (body: string) => string | undefined;
  goal?: KindGoal;
  /** The soak for RSS growth (SQLite targets). */
  soak?: boolean;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const MCP_HEADERS = { ...JSON_HEADERS, Accept: 'application/json, text/event-stream' };
const TOOLS_CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'greet', arguments: { name: 'Alice', shout: true } },
};
const MCP_GOAL: KindGoal = { minRps: 0.6, moonshotRps: 0.8, maxP99: 2 };

/** A JSON-RPC error, or a tool result with `isError`, inside a 2xx (JSON or one SSE event). */
export function jsonRpcFailure(body: string): string | undefined {
  const text = body.trimStart().startsWith('{') ? body : /^data: ?(.*)$/m.exec(body)?.[1];
  if (!text) return 'not a JSON-RPC answer';
  try {
    const answer = JSON.parse(text) as {
      error?: { code?: number; message?: string };
      result?: { isError?: boolean };
    };
    if (answer.error) return `JSON-RPC error ${answer.error.code}: ${answer.error.message}`;
    if (answer.result?.isError) return 'tool result with isError';
    if (!answer.result) return 'no result';
    return undefined;
  } catch {
    return 'not JSON';
  }
}

export const KINDS: readonly RequestKind[] = [
  {
    prefix: '',
    label: 'greet, REST',
    path: GREET,
    body: GREET_BODY,
    headers: JSON_HEADERS,
    auth: 'key',
    soak: true,
  },
  {
    prefix: 'mcp2025',
    label: 'greet, MCP tools/call 2025-06-18',
    path: '/mcp',
    body: JSON.stringify(TOOLS_CALL),
    headers: { ...MCP_HEADERS, 'MCP-Protocol-Version': '2025-06-18' },
    auth: 'key',
    failure: jsonRpcFailure,
    goal: MCP_GOAL,
  },
  {
    prefix: 'mcp2026',
    label: 'greet, MCP tools/call 2026-07-28',
    path: '/mcp',
    body: JSON.stringify({
      ...TOOLS_CALL,
      params: {
        ...TOOLS_CALL.params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
    headers: {
      ...MCP_HEADERS,
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'greet',
    },
    auth: 'key',
    failure: jsonRpcFailure,
    goal: MCP_GOAL,
  },
  {
    prefix: 'oauth',
    label: 'greet, REST, bearer token',
    path: GREET,
    body: GREET_BODY,
    headers: JSON_HEADERS,
    auth: 'token',
    goal: { minRps: 0.8 },
  },
];

/**
 * The service started with more environment and, optionally, a CONFIG_FILE (written into the
 * target's DATA_DIR). The key is made with the same environment, so a plan the file defines can be
 * given to it. Compared with the same target without the variant: reported, or a goal with minRps.
 */
export interface EnvVariant {
  prefix: string;
  label: string;
  env?: Record<string, string>;
  configYaml?: string;
  /** The kinds it applies to (prefixes); default REST greet with a key only. */
  kinds?: string[];
  minRps?: number;
  /** Traces exported, every call sampled, to an OTLP receiver the bench runs (bench/otlp-sink.ts). */
  otlpSink?: boolean;
}

export const VARIANTS: readonly EnvVariant[] = [
  // Issue 32's gate: greet priced 2 credits and a monthly limit beside the daily one, on the bench
  // key's plan, so every call charges both counters (and the month's key on Redis).
  {
    prefix: 'credits',
    label: 'credits and a monthly limit configured',
    configYaml:
      'limits:\n  plans:\n    unlimited: {daily_limit: 1000000000, monthly_limit: 1000000000, tool_costs: {greet: 2}}\n',
    kinds: ['', 'mcp2025'],
    minRps: 0.95,
  },
  // Reported beside it: a daily limit alone, at cost 1 (the model before issue 32), so that a run
  // tells what having a quota at all costs (two more X-Quota-* headers) from what issue 32 adds.
  {
    prefix: 'daily',
    label: 'a daily limit configured',
    configYaml: 'limits:\n  plans:\n    unlimited: {daily_limit: 1000000000}\n',
  },
  // Issue 41's gate: tracing on, every call sampled, batch export to a receiver on loopback.
  {
    prefix: 'traced',
    label: 'traced: every call sampled, exported to an OTLP receiver on loopback',
    env: { OTEL_TRACES_SAMPLER: 'always_on' },
    otlpSink: true,
    kinds: ['', 'mcp2026'],
    minRps: 0.7,
  },
];

export interface PipelineSpec {
  id: string;
  kind: RequestKind;
  variant?: EnvVariant;
  adapter: Adapter;
  store: StoreKind;
}

export function pipelineId(
  kind: string,
  adapter: Adapter,
  store: StoreKind,
  variant?: string,
): string {
  return [variant, kind, adapter, store].filter(Boolean).join('-');
}

/** Every pipeline target: each variant (and none) × its kinds × adapter × store. */
export function pipelineSpecs(): PipelineSpec[] {
  const specs: PipelineSpec[] = [];
  for (const variant of [undefined, ...VARIANTS]) {
    for (const kind of KINDS) {
      if (variant && !(variant.kinds ?? ['']).includes(kind.prefix)) continue;
      for (const adapter of ADAPTERS) {
        for (const store of STORES) {
          const id = pipelineId(kind.prefix, adapter, store, variant?.prefix);
          specs.push({ id, kind, variant, adapter, store });
        }
      }
    }
  }
  return specs;
}
