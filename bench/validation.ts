/**
 * Micro-benchmark of body validation, in one process: the compiled path (ajv functions compiled
 * from the DTO's JSON Schema, what the service runs) against the class-validator path
 * (class-transformer + class-validator, what it ran before), on the same DTOs and bodies, in the
 * same run, the rounds of both interleaved. Reports ns per call and the ratio.
 *
 *   node -r ts-node/register/transpile-only bench/validation.ts
 *
 * Settings: BENCH_VALIDATION_CALLS (20000 calls a round and case), BENCH_VALIDATION_ROUNDS (7).
 * Every loop is bounded; nothing is written.
 */
import 'reflect-metadata';
import type { PipeTransform, Type } from '@nestjs/common';
import { CreateApiKeyInput } from '../src/subjects/api-keys.dto';
import { GreetInput } from '../src/tools/greet/greet.dto';
import { ApiValidationPipe } from '../src/kernel/validation/validation.pipe';
import { ClassValidatorPipe } from '../test/support/validation-cases';
import { machine, median, num } from './lib';

const CALLS = num('BENCH_VALIDATION_CALLS', 20_000);
const ROUNDS = num('BENCH_VALIDATION_ROUNDS', 7);

interface Case {
  name: string;
  dto: Type;
  body: unknown;
  /** Calls a round: fewer for the large bodies. */
  calls: number;
  valid: boolean;
}

const manyKeys = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, 0]));

const CASES: Case[] = [
  { name: 'greet, valid', dto: GreetInput, body: { name: 'Alice', shout: true }, valid: true },
  {
    name: 'greet, invalid (3 entries)',
    dto: GreetInput,
    body: { name: '', shout: 'true', x: 1 },
    valid: false,
  },
  {
    name: 'key creation, valid (5 fields)',
    dto: CreateApiKeyInput,
    body: { name: 'ci', scopes: ['services:read'], plan: 'pro', daily_limit: 10, rate_limit: 5 },
    valid: true,
  },
  {
    name: 'greet, 40,000 unknown keys',
    dto: GreetInput,
    body: { name: 'Alice', ...manyKeys },
    valid: false,
    calls: 30,
  },
  {
    name: 'key creation, 100,000 wrong scopes',
    dto: CreateApiKeyInput,
    body: { name: 'ci', scopes: Array<number>(100_000).fill(1) },
    valid: false,
    calls: 10,
  },
].map((c) => ({ calls: CALLS, ...c }));

/** Mean ns per call over `calls` calls, each awaited as Nest awaits a pipe. */
async function timeCalls(pipe: PipeTransform, c: Case): Promise<number> {
  const metadata = { type: 'body' as const, metatype: c.dto };
  const start = process.hrtime.bigint();
  for (let i = 0; i < c.calls; i++) {
    try {
      await pipe.transform(c.body, metadata);
      if (!c.valid) throw new Error(`${c.name}: accepted`);
    } catch (error) {
      if (c.valid) throw error;
    }
  }
  return Number(process.hrtime.bigint() - start) / c.calls;
}

async function main(): Promise<void> {
  const paths: [string, PipeTransform][] = [
    ['class-validator', new ClassValidatorPipe()],
    ['compiled', new ApiValidationPipe()],
  ];
  console.log(`Node ${process.version}, ${JSON.stringify(machine())}`);
  console.log(`${ROUNDS} rounds, interleaved; the median round is quoted\n`);
  const rows: string[][] = [];
  for (const c of CASES) {
    const rounds: Record<string, number[]> = { 'class-validator': [], compiled: [] };
    // Warm-up: both paths, so the JIT has seen each before it is timed.
    for (const [, pipe] of paths) await timeCalls(pipe, { ...c, calls: Math.ceil(c.calls / 4) });
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, pipe] of round % 2 ? [...paths].reverse() : paths) {
        rounds[name].push(await timeCalls(pipe, c));
      }
    }
    const before = median(rounds['class-validator']);
    const now = median(rounds.compiled);
    rows.push([c.name, fmt(before), fmt(now), `${(before / now).toFixed(1)} ×`]);
  }
  const header = ['body', 'class-validator', 'compiled', 'speed-up'];
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

function fmt(ns: number): string {
  return ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
