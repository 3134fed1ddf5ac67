/**
 * The goals, each met, missed, reported or n/a with the reason: issue 14's (pipeline against the bare
 * routes, Redis against SQLite, FastAPI, the long run, the soak, the cold start), then each request
 * kind's against REST greet with a key on the same adapter and store (bench/kinds.ts: MCP, the
 * bearer token) and each environment variant's against the same target without it.
 */
import { KINDS, pipelineId, VARIANTS } from './kinds';
import type { Result } from './measure';
import { CONNECTIONS, SOAK, STALL_DURATION, STALL_MS } from './settings';

export interface Goal {
  goal: string;
  measured: string;
  verdict: 'met' | 'missed' | 'reported' | 'n/a';
  note?: string;
}

/** Why a result cannot stand for its adapter: HTTP_ADAPTER=fastify not seen running Fastify. */
function adapterDoubt(r: Result): string | undefined {
  if (!r.adapter) return undefined;
  const { requested, running } = r.adapter;
  if (running === requested) return undefined;
  if (requested === 'express' && running === 'unknown') return undefined;
  return `HTTP_ADAPTER=${requested} requested, the start-up log names ${running === 'unknown' ? 'no adapter' : running}`;
}

/** Why a result's figures are not those of the request it stands for: refusals, errors in a 200. */
export function failure(r: Result): string | undefined {
  if (r.sample?.failure) return `${r.id} ${r.sample.failure}`;
  if (r.exited) return `${r.id} ${r.exited} during the rounds`;
  if (r.errors > 0) return `${r.id}: ${r.errors} connection errors or timeouts`;
  if (r.non2xx > 0) {
    const statuses = Object.entries(r.statuses)
      .filter(([s]) => !s.startsWith('2'))
      .map(([s, n]) => `${s} × ${n}`);
    return `${r.id}: ${r.non2xx} answers not 2xx (${statuses.join(', ')})`;
  }
  return undefined;
}

const doubtOf = (r: Result) => failure(r) ?? adapterDoubt(r);

export const kindOf = (r: Result) => KINDS.find((k) => (k.prefix || 'rest') === r.pipeline?.kind);

type Bound = { op: '>=' | '<='; value: number; moonshot?: number };

/** Builds the goal list; `missing` says why a target has no result (skipped or not selected). */
class Goals {
  readonly list: Goal[] = [];
  constructor(
    private readonly results: Result[],
    private readonly skipped: Record<string, string>,
  ) {}

  by(id: string): Result | undefined {
    return this.results.find((r) => r.id === id);
  }

  missing(id: string): string {
    return this.skipped[id] ?? `${id} not in BENCH_TARGETS`;
  }

  /** `a`'s field over `b`'s against a bound; reported when there is none. */
  ratio(goal: string, a: string, b: string, field: 'rps' | 'p99', bound?: Bound): void {
    const x = this.by(a);
    const y = this.by(b);
    if (!x || !y) {
      this.list.push({ goal, measured: '–', verdict: 'n/a', note: this.missing(x ? b : a) });
      return;
    }
    const q = Math.round((x[field] / y[field]) * 100) / 100;
    const unit = field === 'rps' ? 'req/s' : 'ms';
    const measured = `${q} × (${x[field]} vs ${y[field]} ${unit})`;
    const doubt = doubtOf(x) ?? doubtOf(y);
    if (!bound) this.list.push({ goal, measured, verdict: 'reported', note: doubt });
    else if (doubt) this.list.push({ goal, measured, verdict: 'n/a', note: doubt });
    else {
      const ok = bound.op === '>=' ? q >= bound.value : q <= bound.value;
      const moonshot = bound.moonshot === undefined ? undefined : q >= bound.moonshot;
      this.list.push({
        goal,
        measured,
        verdict: ok ? 'met' : 'missed',
        note:
          moonshot === undefined
            ? undefined
            : `moonshot ${bound.moonshot} × ${moonshot ? 'met' : 'not yet'}`,
      });
    }
  }
}

export function goals(results: Result[], skipped: Record<string, string>): Goal[] {
  const g = new Goals(results, skipped);
  const rps = (value: number): Bound => ({ op: '>=', value });
  const p99 = (value: number): Bound => ({ op: '<=', value });
  // issue 14
  const bare = 'bare NestJS on';
  g.ratio(
    `Express pipeline, SQLite ≥ 0.6 × ${bare} Express`,
    'express-sqlite',
    'nest-express',
    'rps',
    rps(0.6),
  );
  g.ratio(
    `Express pipeline, SQLite: p99 ≤ 2 × ${bare} Express`,
    'express-sqlite',
    'nest-express',
    'p99',
    p99(2),
  );
  g.ratio(
    `Fastify pipeline, SQLite ≥ 0.5 × ${bare} Fastify`,
    'fastify-sqlite',
    'nest-fastify',
    'rps',
    rps(0.5),
  );
  g.ratio(
    `Fastify pipeline, SQLite: p99 ≤ 2 × ${bare} Fastify`,
    'fastify-sqlite',
    'nest-fastify',
    'p99',
    p99(2),
  );
  g.ratio('Express: Redis ≥ 0.8 × SQLite', 'express-redis', 'express-sqlite', 'rps', rps(0.8));
  g.ratio('Fastify: Redis ≥ 0.8 × SQLite', 'fastify-redis', 'fastify-sqlite', 'rps', rps(0.8));
  g.ratio(
    'Fastify pipeline, SQLite ≥ 2 × bare FastAPI',
    'fastify-sqlite',
    'fastapi',
    'rps',
    rps(2),
  );
  g.ratio('Express pipeline, SQLite vs bare FastAPI', 'express-sqlite', 'fastapi', 'rps');

  const pipelines = results.filter((r) => r.pipeline && !r.pipeline.base);
  // each request kind against REST greet with a key, same adapter, store and variant
  for (const r of pipelines) {
    const goal = kindOf(r)?.goal;
    if (!goal) continue;
    const p = r.pipeline!;
    const rest = pipelineId('', p.adapter, p.store, p.variant);
    g.ratio(`${r.id} ≥ ${goal.minRps} × ${rest}`, r.id, rest, 'rps', {
      ...rps(goal.minRps),
      moonshot: goal.moonshotRps,
    });
    if (goal.maxP99 !== undefined) {
      g.ratio(`${r.id}: p99 ≤ ${goal.maxP99} × ${rest}'s`, r.id, rest, 'p99', p99(goal.maxP99));
    }
  }
  // each environment variant against the same target without it
  for (const r of pipelines) {
    const variant = VARIANTS.find((v) => v.prefix === r.pipeline!.variant);
    if (!variant) continue;
    const p = r.pipeline!;
    const plain = pipelineId(p.kind === 'rest' ? '' : p.kind, p.adapter, p.store);
    const bound = variant.minRps === undefined ? undefined : rps(variant.minRps);
    const than = bound ? `≥ ${variant.minRps} ×` : 'vs';
    g.ratio(`${r.id} (${variant.label}) ${than} ${plain}`, r.id, plain, 'rps', bound);
  }

  const settingsNote =
    STALL_DURATION === 30 && CONNECTIONS === 32
      ? undefined
      : `run was ${STALL_DURATION} s at ${CONNECTIONS} connections; the goal is stated for 30 s at 32`;
  for (const r of pipelines) {
    const doubt = doubtOf(r);
    const verdict = (ok: boolean) => (doubt ? 'n/a' : ok ? 'met' : 'missed');
    if (r.stall) {
      const n = r.stall.over[`>${STALL_MS}ms`];
      g.list.push({
        goal: `${r.id}: no request over ${STALL_MS} ms in a ${STALL_DURATION} s run`,
        measured: `${n} of ${r.stall.requests} (max ${r.stall.max} ms; the ${r.stall.firstAnswers.count} first answers on new connections, not counted: up to ${r.stall.firstAnswers.maxMs} ms)`,
        verdict: verdict(n === 0),
        note: doubt ?? settingsNote,
      });
    } else if (STALL_DURATION > 0) {
      g.list.push({
        goal: `${r.id}: no request over ${STALL_MS} ms in a ${STALL_DURATION} s run`,
        measured: '–',
        verdict: 'n/a',
        note: doubt ? `no long run: ${doubt}` : 'no long run',
      });
    }
    if (r.soak) {
      g.list.push({
        goal: `${r.id}: RSS growth < 20 MB over ${SOAK} requests`,
        measured: `${r.soak.growthMb} MB (${r.soak.rssBeforeMb} → ${r.soak.rssAfterMb})`,
        verdict: verdict(r.soak.growthMb < 20),
        note: doubt,
      });
    }
    g.list.push({
      goal: `${r.id}: cold start < 1.5 s`,
      measured: `${(r.coldStartMs / 1000).toFixed(2)} s`,
      verdict: verdict(r.coldStartMs < 1500),
      note: doubt,
    });
  }
  return g.list;
}
