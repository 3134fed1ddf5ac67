/**
 * Load benchmark: the service and its peers side by side in one run, on this machine, with one load
 * generator (autocannon, in this process) and one connection count (BENCH_CONNECTIONS, 32):
 *   peers:    bare Node http, bare NestJS on Express, bare NestJS on Fastify, and a bare FastAPI
 *             route under uvicorn when a python3 with fastapi and uvicorn is found (skipped with a
 *             note otherwise);
 *   pipeline: this service through the whole pipeline, one target per request kind (REST greet with
 *             a key, a greet tools/call over MCP in each era, REST greet with a bearer token),
 *             adapter (Express, HTTP_ADAPTER=fastify) and store (SQLite, a private redis-server),
 *             and per environment variant (bench/kinds.ts); with BENCH_BASELINE_DIR, each has an
 *             `@base` twin started from that build.
 * Every target is started first, one at a time (cold start: spawn to the first answer), then warmed
 * up and one answer read and checked; the measured rounds are interleaved (round 1 of every target,
 * then round 2, …; a twin runs next to its target) so that a change in the machine's background
 * load falls on every target alike; the median round is quoted. Then each pipeline target of this
 * build gets one long run (BENCH_STALL_DURATION, 30 s) that counts the requests over 100 ms, and
 * each SQLite REST one a soak of BENCH_SOAK_REQUESTS (200,000) for RSS growth.
 *
 * Run with `npm run bench` (builds first); bench/README.md has the method, targets and settings.
 * Loopback only; every wait is bounded; children and temporary directories are removed also on
 * failure or interruption.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pairs } from './ab';
import { goals } from './goals';
import { PipelineSpec, pipelineSpecs } from './kinds';
import { installCleanup, machine, rssMb, sleep, startRedis, stop } from './lib';
import * as m from './measure';
import { report } from './report';
import * as s from './settings';
import * as t from './targets';

type Redis = Awaited<ReturnType<typeof startRedis>>;

function selection(): { peers: string[]; specs: PipelineSpec[] } {
  const all = pipelineSpecs();
  const raw = process.env.BENCH_TARGETS;
  if (!raw) return { peers: [...t.PEER_IDS], specs: all.filter((x) => !x.variant) };
  const ids = raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const known = [...t.PEER_IDS, ...all.map((x) => x.id)];
  const unknown = ids.filter((id) => !known.includes(id));
  if (unknown.length) {
    throw new Error(`unknown BENCH_TARGETS ${unknown.join(', ')}; known: ${known.join(', ')}`);
  }
  return {
    peers: t.PEER_IDS.filter((id) => ids.includes(id)),
    specs: all.filter((x) => ids.includes(x.id)),
  };
}

/** The targets to start, a twin right after its target; `skipped` says why one is missing. */
async function makeTargets(
  skipped: Record<string, string>,
  redis: Map<'after' | 'before', Redis>,
  builds: { after: t.Build; before?: t.Build },
): Promise<t.Target[]> {
  const { peers, specs } = selection();
  const targets: t.Target[] = [];
  for (const id of peers) {
    if (id === 'node')
      targets.push(t.nodeTarget(id, 'bare Node http', 'bench/targets/bare-node.ts'));
    if (id === 'nest-express')
      targets.push(t.nodeTarget(id, 'bare NestJS on Express', 'bench/targets/bare-nest.ts'));
    if (id === 'nest-fastify')
      targets.push(
        t.nodeTarget(id, 'bare NestJS on Fastify', 'bench/targets/bare-nest-fastify.ts'),
      );
    if (id === 'fastapi') {
      const python = t.findPython();
      if ('note' in python) skipped[id] = `skipped: ${python.note}`;
      else targets.push(t.fastApiTarget(python));
    }
  }
  const tokenSource = t.tokenSourceFromEnv();
  for (const spec of specs) {
    if (spec.kind.auth === 'token' && !tokenSource) {
      skipped[spec.id] =
        'skipped: no token source (BENCH_TOKEN_CMD or BENCH_TOKEN_MODULE; bench/README.md, "Token targets")';
      continue;
    }
    for (const base of builds.before ? [false, true] : [false]) {
      const id = base ? `${spec.id}${t.BASE_SUFFIX}` : spec.id;
      const build = base ? builds.before! : builds.after;
      let url: string | undefined;
      if (spec.store === 'redis') {
        // the twins have a redis-server of their own: the two builds' layouts and channels apart
        const which = base ? 'before' : 'after';
        if (!redis.has(which)) redis.set(which, await startRedis());
        url = redis.get(which)?.url;
        if (!url) {
          skipped[id] = 'skipped: no redis-server on PATH';
          continue;
        }
      }
      try {
        targets.push(await t.serviceTarget(spec, build, base, url, tokenSource));
      } catch (error) {
        skipped[id] = `skipped: ${(error as Error).message.split('\n')[0]}`;
      }
    }
  }
  return targets;
}

/** Round i: every target, a twin next to its target, the pair's order alternating by round. */
function roundOrder(running: m.Running[], round: number): m.Running[] {
  const twinOf = (r: m.Running, base: boolean) =>
    running.find(
      (x) => x.target.pipeline?.base === base && x.target.pipeline.id === r.target.pipeline?.id,
    );
  const order: m.Running[] = [];
  for (const r of running) {
    const base = r.target.pipeline?.base;
    if (base === undefined) order.push(r);
    else if (base) {
      if (!twinOf(r, false)) order.push(r); // its target did not start
    } else {
      const twin = twinOf(r, true);
      if (!twin) order.push(r);
      else order.push(...(round % 2 === 0 ? [r, twin] : [twin, r]));
    }
  }
  return order;
}

/** RSS now, or NaN for a process that is gone. */
function rssNow(r: m.Running): number {
  try {
    return rssMb(r.child.pid!);
  } catch {
    return NaN;
  }
}

/** Groups the skipped targets by reason: one note a reason. */
function skipNotes(skipped: Record<string, string>): string[] {
  const byReason = new Map<string, string[]>();
  for (const [id, reason] of Object.entries(skipped)) {
    byReason.set(reason, [...(byReason.get(reason) ?? []), id]);
  }
  return [...byReason].map(([reason, ids]) => `${ids.join(', ')}: ${reason}`);
}

async function main(): Promise<void> {
  installCleanup();
  const startedAt = new Date().toISOString();
  const atStart = machine();
  const builds = {
    after: t.buildAt(s.APP_DIR, 'this build'),
    before: s.BASELINE_DIR ? t.buildAt(s.BASELINE_DIR, 'baseline') : undefined,
  };
  if (builds.before && s.ROUNDS < s.AB_MIN_ROUNDS) {
    m.log(
      `warning: BENCH_ROUNDS=${s.ROUNDS} with a baseline; a 5 % gate needs at least ${s.AB_MIN_ROUNDS} rounds (the A/B is indicative)`,
    );
  }
  const skipped: Record<string, string> = {};
  const redis = new Map<'after' | 'before', Redis>();
  const running: m.Running[] = [];
  let targets: t.Target[] = [];
  try {
    targets = await makeTargets(skipped, redis, builds);
    for (const target of targets) {
      m.log(`starting ${target.id}`);
      try {
        const r = await m.start(target);
        running.push(r);
        m.log(`  ${target.id}: first answer after ${r.coldStartMs} ms, RSS ${r.rssRestMb} MB`);
        if (target.pipeline) m.log(`  ${target.id}: adapter ${JSON.stringify(m.adapterOf(r))}`);
      } catch (error) {
        const lines = (error as Error).message.split('\n');
        skipped[target.id] =
          `did not start: ${lines.slice(0, 1).concat(lines.slice(-3)).join(' | ')}`;
        m.log(`  ${target.id} ${skipped[target.id]}`);
      }
    }
    const samples = new Map<m.Running, m.Sample>();
    for (const r of running) {
      await m.load(r, { duration: s.WARMUP });
      const answer = await m.sample(r);
      samples.set(r, answer);
      m.log(`  ${r.target.id} answers ${answer.status} ${answer.body.slice(0, 160)}`);
      if (answer.failure) m.log(`  ${r.target.id}: ${answer.failure}`);
    }
    const rounds = new Map<m.Running, m.Load[]>(running.map((r) => [r, []]));
    for (let i = 0; i < s.ROUNDS; i++) {
      for (const r of roundOrder(running, i)) {
        const l = await m.load(r, { duration: s.DURATION });
        rounds.get(r)!.push(l);
        m.log(
          `  round ${i + 1} ${r.target.id}: ${l.rps} req/s, p50 ${l.p50} p99 ${l.p99} max ${l.max} ms, >100 ms ${l.over['>100ms']}, non-2xx ${l.non2xx}, errors ${l.errors}`,
        );
        await sleep(500);
      }
    }
    const results = running.map((r) => m.summarise(r, rounds.get(r)!, samples.get(r)!, rssNow(r)));
    const lost: string[] = [];
    for (const [i, r] of running.entries()) {
      const p = r.target.pipeline;
      if (!p || p.base || samples.get(r)!.failure || r.exited) continue;
      try {
        if (s.STALL_DURATION > 0) {
          m.log(`  long run ${r.target.id} (${s.STALL_DURATION} s)`);
          results[i].stall = await m.stallRun(r);
        }
        if (s.SOAK > 0 && p.store === 'sqlite' && p.kind.soak) {
          m.log(`  soak ${r.target.id} (${s.SOAK} requests)`);
          results[i].soak = await m.soak(r);
        }
      } catch (error) {
        // a target that died in its long run or soak: reported, the others still run
        const how = r.exited ? `; the process ${r.exited}` : '';
        lost.push(`${r.target.id}: long run or soak failed: ${(error as Error).message}${how}`);
        m.log(`  ${lost[lost.length - 1]}`);
        if (r.stderrTail.length) m.log(r.stderrTail.slice(-5).join('\n'));
      }
    }
    const goalList = goals(
      results,
      Object.fromEntries(Object.entries(skipped).map(([id, why]) => [id, `${id} ${why}`])),
    );
    const abPairs = pairs(results);
    const gone = results
      .filter((x) => x.exited)
      .map((x) => `${x.id} ${x.exited} during the rounds: its goals are n/a`);
    const notes = [...skipNotes(skipped), ...gone, ...lost];
    const out = {
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: atStart,
      loadavg1AtEnd: machine().loadavg1,
      settings: {
        generator: 'autocannon (in the bench process)',
        connections: s.CONNECTIONS,
        durationS: s.DURATION,
        rounds: s.ROUNDS,
        warmupS: s.WARMUP,
        stallDurationS: s.STALL_DURATION,
        soakRequests: s.SOAK,
        appDir: builds.after.dir,
        baselineDir: builds.before?.dir,
      },
      builds: { after: builds.after.label, before: builds.before?.label },
      results,
      pairedAB: abPairs,
      goals: goalList,
      notes,
    };
    mkdirSync(dirname(s.OUT), { recursive: true });
    writeFileSync(s.OUT, JSON.stringify(out, null, 2));
    const labels = { after: builds.after.label, before: builds.before?.label };
    process.stdout.write(
      `${report(results, goalList, abPairs, labels, notes)}\n\nresults: ${s.OUT}\n`,
    );
  } finally {
    for (const r of running) await stop(r.child);
    for (const target of targets) await target.cleanup?.();
    for (const server of redis.values()) await server?.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
