import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { ANSWERS_FILE } from '../../../test/support/record-validation-answers';
import {
  Answer,
  answerOf,
  anyCase,
  ClassValidatorPipe,
  DTOS,
  handPickedCases,
  RecordedCase,
} from '../../../test/support/validation-cases';
import { compiledValidatorFor, defaultsOf } from './compiled.validator';
import { ApiValidationPipe } from './validation.pipe';

/**
 * The differential safety net of body validation. The class-validator pipe's answers, recorded
 * before validation was compiled (test/support/validation-answers.json), must stay the same on
 * the compiled path and on the class-validator path (kept for raw class-validator DTOs); and the
 * two paths must agree on bodies generated afresh.
 */
const compiled = new ApiValidationPipe();
const classValidator = new ClassValidatorPipe();

/**
 * A recorded answer as it reads now: the same entries, byte for byte (key order included: what
 * the client reads); the same input for the handler, plus the defaults the field decorators
 * state that no class initialiser gave before (`grace_seconds: 0`).
 */
function sameAsRecorded(answer: Answer, c: RecordedCase): boolean {
  if (!('ok' in c.answer) || !('ok' in answer)) {
    return JSON.stringify(answer) === JSON.stringify(c.answer);
  }
  const value = { ...(c.answer.ok.value as Record<string, unknown>) };
  for (const [name, fallback] of defaultsOf(DTOS[c.dto])) value[name] ??= fallback;
  return answer.ok.class === c.answer.ok.class && equal(answer.ok.value, value);
}

function equal(a: unknown, b: unknown): boolean {
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
}

describe('body validation: the differential safety net', () => {
  const recorded = JSON.parse(readFileSync(ANSWERS_FILE, 'utf8')) as RecordedCase[];

  it('has recorded hand-picked and generated cases for every DTO, valid and not', () => {
    expect(recorded.length).toBeGreaterThan(900);
    expect(new Set(recorded.map((c) => c.dto))).toEqual(new Set(Object.keys(DTOS)));
    expect(recorded.filter((c) => 'ok' in c.answer).length).toBeGreaterThan(300);
    const types = new Set(
      recorded.flatMap((c) => ('issues' in c.answer ? c.answer.issues.map((i) => i.type) : [])),
    );
    expect([...types].sort()).toEqual(
      [
        'bool_type',
        'dict_type',
        'extra_forbidden',
        'greater_than_equal',
        'int_type',
        'less_than_equal',
        'list_type',
        'literal_error',
        'missing',
        'string_too_long',
        'string_too_short',
        'string_type',
        'too_long',
        'value_error',
      ].sort(),
    );
  });

  it('compiles every DTO of the service: none takes the class-validator path', () => {
    for (const [name, dto] of Object.entries(DTOS)) {
      expect({ name, compiled: compiledValidatorFor(dto) !== null }).toEqual({
        name,
        compiled: true,
      });
    }
  });

  it.each([
    ['compiled', compiled],
    ['class-validator', classValidator],
  ])('answers every recorded case as recorded (%s)', async (_, pipe) => {
    const differences: unknown[] = [];
    for (const c of recorded) {
      const answer = await answerOf(pipe, DTOS[c.dto], c.body);
      if (!sameAsRecorded(answer, c)) differences.push({ ...c, now: answer });
    }
    expect(differences.slice(0, 3)).toEqual([]);
  });

  it('answers as class-validator does, byte for byte, on hand-picked and generated bodies', async () => {
    const agree = async ({ dto, body }: { dto: string; body?: unknown }) => {
      const now = await answerOf(compiled, DTOS[dto], body);
      const before = await answerOf(classValidator, DTOS[dto], body);
      expect({ dto, body, answer: JSON.stringify(now) }).toEqual({
        dto,
        body,
        answer: JSON.stringify(before),
      });
    };
    for (const c of handPickedCases()) await agree(c);
    await fc.assert(fc.asyncProperty(anyCase, agree), { seed: 14, numRuns: 3000 });
  });
});
