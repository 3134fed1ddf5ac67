import { ApiProperty, defineTool, IntField, StringField } from '../../src';

/** A tool in the one-file form (`defineTool`), imported from the package's entry as a team's is. */
export class RepeatInput {
  @StringField({ description: 'The text repeated.', minLength: 1, maxLength: 100, example: 'la' })
  text: string;

  @IntField({ description: 'How many times.', optional: true, minimum: 1, maximum: 5, default: 2 })
  times: number;
}

export class RepeatResult {
  @ApiProperty({ description: 'The text, `times` times.', example: 'lala' })
  text: string;

  @ApiProperty({ description: 'Who asked: the caller kind.', example: 'key' })
  caller: string;
}

export const RepeatToolModule = defineTool({
  name: 'repeat_text',
  title: 'Repeat text',
  description: 'Repeats a text a few times.',
  input: RepeatInput,
  output: RepeatResult,
  cost: 3,
  timeoutMs: 5_000,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: ({ text, times }, { caller }) => ({ text: text.repeat(times), caller: caller.kind }),
});
