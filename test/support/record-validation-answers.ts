/**
 * Records the class-validator pipe's answers to the differential cases in validation-answers.json:
 *
 *   node -r ts-node/register/transpile-only test/support/record-validation-answers.ts
 *
 * The file holds the answers of the pipe as it was before validation was compiled: recorded on
 * commit bf6c0d9, whose pipe had no other path (for new cases, run it there:
 * `git archive bf6c0d9 | tar -x -C DIR`, link node_modules, copy this file and
 * validation-cases.ts in). Run here, it records today's class-validator path.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  answerOf,
  Case,
  ClassValidatorPipe,
  DTOS,
  generatedCases,
  handPickedCases,
} from './validation-cases';

export const ANSWERS_FILE = join(__dirname, 'validation-answers.json');
export const GENERATED_PER_DTO = 100;

async function main(): Promise<void> {
  const pipe = new ClassValidatorPipe();
  // Through JSON first: the file can only hold what JSON holds (-0 becomes 0, no undefined).
  const cases = JSON.parse(
    JSON.stringify([...handPickedCases(), ...generatedCases(GENERATED_PER_DTO)]),
  ) as Case[];
  const lines: string[] = [];
  for (const c of cases) {
    const answer = await answerOf(pipe, DTOS[c.dto], c.body);
    lines.push(JSON.stringify({ ...c, answer }));
  }
  // One case a line: a change shows as a readable diff.
  writeFileSync(ANSWERS_FILE, `[\n${lines.join(',\n')}\n]\n`);
  console.log(`${lines.length} answers written to ${ANSWERS_FILE}`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
