/**
 * The paired A/B against a baseline build (BENCH_BASELINE_DIR): each pipeline target and its `@base`
 * twin, run in the same interleaved rounds, side by side. The contract's rule for its 5 % gates:
 * "paired, interleaved A/B runs of the before and after builds, median of at least 5 rounds each".
 */
import { failure } from './goals';
import { median } from './lib';
import type { Result } from './measure';
import { AB_MIN_ROUNDS, AB_TOLERANCE, ROUNDS } from './settings';
import { BASE_SUFFIX } from './targets';

export interface Pair {
  id: string;
  rpsAfter: number;
  rpsBefore: number;
  /** The medians' ratio, after over before: what the 5 % rule reads. */
  ratio: number;
  /** Round i of the target over round i of its twin, which ran next to it. */
  roundRatios: number[];
  p99After: number;
  p99Before: number;
  p99Ratio: number;
  change: string;
  /** `met`: not slower than the tolerance; n/a when either answered other than 2xx. */
  verdict: 'met' | 'missed' | 'n/a';
  note?: string;
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const rounds = (n: number) => `${n} round${n === 1 ? '' : 's'}`;

export function pairs(results: Result[]): Pair[] {
  const list: Pair[] = [];
  for (const before of results.filter((r) => r.pipeline?.base)) {
    const after = results.find((r) => r.id === before.pipeline!.plainId);
    if (!after) continue;
    const ratio = r2(after.rps / before.rps);
    const roundRatios = after.rounds.map((l, i) => r2(l.rps / (before.rounds[i]?.rps ?? NaN)));
    const doubt = failure(after) ?? failure(before);
    const percent = Math.round(Math.abs(ratio - 1) * 1000) / 10;
    const change =
      Math.abs(ratio - 1) <= AB_TOLERANCE
        ? `within ${AB_TOLERANCE * 100} % (${ratio >= 1 ? '+' : '−'}${percent} %)`
        : `${ratio > 1 ? 'faster' : 'slower'} by ${percent} %`;
    const notes = [
      doubt,
      ROUNDS < AB_MIN_ROUNDS ? `${rounds(ROUNDS)}; the rule asks ${AB_MIN_ROUNDS}` : undefined,
    ].filter(Boolean);
    list.push({
      id: after.id,
      rpsAfter: after.rps,
      rpsBefore: before.rps,
      ratio,
      roundRatios,
      p99After: after.p99,
      p99Before: before.p99,
      p99Ratio: r2(after.p99 / before.p99),
      change,
      verdict: doubt ? 'n/a' : ratio >= 1 - AB_TOLERANCE ? 'met' : 'missed',
      note: notes.length ? notes.join('; ') : undefined,
    });
  }
  return list;
}

export function abReport(list: Pair[], after: string, before: string): string[] {
  if (!list.length) return [];
  const lines = [
    '',
    `Paired A/B: after = ${after}, before = ${before} (the \`${BASE_SUFFIX}\` twins); ${rounds(ROUNDS)} each, interleaved, each pair side by side in every round (its order alternating), medians quoted; the gate: after ≥ ${1 - AB_TOLERANCE} × before`,
    '',
    '| target | req/s after | req/s before | after ÷ before | round by round (median, min–max) | p99 after ms | p99 before ms | p99 after ÷ before | change | not slower than 5 % |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...list.map((p) => {
      const rr = p.roundRatios.filter(Number.isFinite);
      const spread = rr.length ? `${median(rr)} (${Math.min(...rr)}–${Math.max(...rr)})` : '–';
      return `| ${p.id} | ${p.rpsAfter} | ${p.rpsBefore} | ${p.ratio} × | ${spread} | ${p.p99After} | ${p.p99Before} | ${p.p99Ratio} × | ${p.change} | ${p.verdict}${p.note ? ` (${p.note})` : ''} |`;
    }),
  ];
  if (ROUNDS < AB_MIN_ROUNDS) {
    lines.push(
      '',
      `- **Warning**: BENCH_ROUNDS=${ROUNDS}; a 5 % gate needs the median of at least ${AB_MIN_ROUNDS} rounds each (the contract's "Bench gates of 5 %"). These figures are indicative.`,
    );
  }
  return lines;
}
