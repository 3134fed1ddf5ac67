/**
 * Records the class-validator pipe's answers to the differential cases in validation-answers.json:
 *
 *   node -r ts-node/register/transpile-only test/support/record-validation-answers.ts
 *
 * It was run once on the pipe as it was before validation was compiled (commit "differential
 * safety net"), so the file holds the answers the compiled validator must keep. Run again, it
 * records the class-validator path that raw class-validator DTOs still take.
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
