/** The bench's report on stdout: the targets, the long runs, the paired A/B, the goals, the notes. */
import { abReport, Pair } from './ab';
import type { Goal } from './goals';
import { failure, kindOf } from './goals';
import { KINDS } from './kinds';
import type { Result } from './measure';
import { CONNECTIONS, DURATION, ROUNDS, STALL_DURATION, WARMUP } from './settings';

function adapterCell(r: Result): string {
  if (!r.adapter) return '–';
  const { requested, running } = r.adapter;
  if (running === 'unknown') return `${requested} requested, log names none`;
  return running === requested ? running : `${requested} requested, ${running} ran`;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** What each request kind in the run sends. */
function kindLines(results: Result[]): string[] {
  const used = new Set(results.map((r) => (r.pipeline ? kindOf(r)?.prefix : '')));
  return KINDS.filter((k) => used.has(k.prefix)).map((k) => {
    const headers = Object.entries(k.headers)
      .filter(([name]) => name !== 'Content-Type')
      .map(([name, value]) => `${name}: ${value}`);
    const auth =
      k.auth === 'key' ? 'an API key' : 'the token source (BENCH_TOKEN_CMD or BENCH_TOKEN_MODULE)';
    return `- \`${k.prefix || '(no prefix)'}\`: POST ${k.path} ${k.body}${headers.length ? `; ${headers.join('; ')}` : ''}; Authorization from ${auth}`;
  });
}

/** One answer per request kind and every failing target's, read after the warm-up. */
function sampleLines(results: Result[]): string[] {
  const shown = new Set<string>();
  const lines: string[] = [];
  for (const r of results) {
    if (!r.sample) continue;
    const kind = r.pipeline ? (kindOf(r)?.prefix ?? '') : 'peer';
    const bad = failure(r);
    if (!bad && (shown.has(kind) || kind === 'peer' || kind === '')) continue;
    shown.add(kind);
    lines.push(
      `- ${r.id}: ${r.sample.status} ${cut(r.sample.body, 200)}${bad ? ` — **${bad}**` : ''}`,
    );
  }
  return lines;
}

export function report(
  results: Result[],
  goalList: Goal[],
  abPairs: Pair[],
  builds: { after: string; before?: string },
  notes: string[],
): string {
  const lines = [
    `autocannon, ${CONNECTIONS} connections; ${ROUNDS} interleaved round${ROUNDS === 1 ? '' : 's'} of ${DURATION} s after a ${WARMUP} s warm-up, median round quoted; 127.0.0.1; the service: ${builds.after}`,
    '',
    'Requests: peers and REST targets send POST /api/v1/services/greet {"name":"Alice","shout":true}; a pipeline target id is [variant-][kind-]adapter-store, kinds:',
    ...kindLines(results),
    '',
    '| target | adapter | req/s | p50 ms | p99 ms | max ms | > 100 ms | non-2xx | errors | cold start ms | RSS rest → after MB |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.id}: ${r.label} | ${adapterCell(r)} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.max} | ${r.over100} | ${r.non2xx} | ${r.errors} | ${r.coldStartMs} | ${r.rssRestMb} → ${Number.isNaN(r.rssAfterMb) ? `– (${r.exited ?? 'gone'})` : r.rssAfterMb} |`,
    ),
  ];
  const samples = sampleLines(results);
  if (samples.length) {
    lines.push(
      '',
      'Answers read after the warm-up (one per kind, and each failing target):',
      ...samples,
    );
  }
  const stalls = results.filter((r) => r.stall);
  if (stalls.length) {
    lines.push(
      '',
      `Long runs (${STALL_DURATION} s, ${CONNECTIONS} connections): answers over each threshold, the event loop's max delay (prom-client) and GC pauses over 10 / 100 ms in the run`,
      '',
      '| target | requests | req/s | p99 ms | max ms | > 10 | > 25 | > 50 | > 100 ms | loop max ms | GC > 10 / > 100 ms | first answers max ms |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...stalls.map((r) => {
        const s = r.stall!;
        const o = (t: number) => s.over[`>${t}ms`];
        return `| ${r.id} | ${s.requests} | ${s.rps} | ${s.p99} | ${s.max} | ${o(10)} | ${o(25)} | ${o(50)} | ${o(100)} | ${s.loopMaxMs} | ${s.gcOver10ms} / ${s.gcOver100ms} | ${s.firstAnswers.maxMs} |`;
      }),
    );
  }
  if (builds.before) lines.push(...abReport(abPairs, builds.after, builds.before));
  lines.push(
    '',
    '| goal | measured | verdict |',
    '|---|---|---|',
    ...goalList.map(
      (g) => `| ${g.goal} | ${g.measured} | ${g.verdict}${g.note ? ` (${g.note})` : ''} |`,
    ),
  );
  if (notes.length) lines.push('', ...notes.map((n) => `- ${n}`));
  return lines.join('\n');
}
