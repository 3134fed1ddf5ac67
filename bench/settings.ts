/** The load benchmark's settings (bench/README.md, "Settings"), read once from the environment. */
import { resolve } from 'node:path';
import { num, ROOT } from './lib';

export const CONNECTIONS = num('BENCH_CONNECTIONS', 32);
export const DURATION = num('BENCH_DURATION', 8);
export const ROUNDS = num('BENCH_ROUNDS', 3);
export const WARMUP = num('BENCH_WARMUP', 3);
export const STALL_DURATION = num('BENCH_STALL_DURATION', 30);
export const SOAK = num('BENCH_SOAK_REQUESTS', 200_000);
export const APP_DIR = resolve(process.env.BENCH_APP_DIR ?? ROOT);
/** A directory holding another build's dist/: each pipeline target gets an `@base` twin from it. */
export const BASELINE_DIR = process.env.BENCH_BASELINE_DIR
  ? resolve(process.env.BENCH_BASELINE_DIR)
  : undefined;
export const OUT = resolve(ROOT, process.env.BENCH_OUT ?? 'bench/results/latest.json');
/** Latency thresholds counted per answer, in ms; the long-run goal is on the last one. */
export const OVER_MS = [10, 25, 50, 100] as const;
export const STALL_MS = 100;
/** The contract's paired A/B: the median of at least this many rounds each, a change within 5 %. */
export const AB_MIN_ROUNDS = 5;
export const AB_TOLERANCE = 0.05;
