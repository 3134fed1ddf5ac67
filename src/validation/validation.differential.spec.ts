import { readFileSync } from 'node:fs';
import { ApiValidationPipe } from './validation.pipe';
import { answerOf, DTOS, RecordedCase } from '../../test/support/validation-cases';
import { ANSWERS_FILE } from '../../test/support/record-validation-answers';

/**
 * The differential safety net of body validation: the answers recorded from the class-validator
 * pipe before validation was compiled (test/support/validation-answers.json) must stay the same.
 */
describe('body validation keeps its recorded answers', () => {
  const recorded = JSON.parse(readFileSync(ANSWERS_FILE, 'utf8')) as RecordedCase[];
  const pipe = new ApiValidationPipe();

  it('holds hand-picked and generated cases for every DTO', () => {
    expect(recorded.length).toBeGreaterThan(900);
    expect(new Set(recorded.map((c) => c.dto))).toEqual(new Set(Object.keys(DTOS)));
  });

  it('answers every recorded case as recorded', async () => {
    for (const c of recorded) {
      const answer = await answerOf(pipe, DTOS[c.dto], c.body);
      expect({ dto: c.dto, body: c.body, answer }).toEqual(c);
    }
  });
});
