import {
  ApiProperty,
  BoolField,
  defineTool,
  StringField,
  type ToolContext,
} from 'tool-invocation-service';

/** A team's tool in one file, written against the package's entry as in the team's repository. */
export class WordCountInput {
  @StringField({
    description: 'The text counted.',
    minLength: 1,
    maxLength: 1000,
    example: 'a b a',
  })
  text: string;

  @BoolField({ description: 'Counts each word once.', optional: true, default: false })
  unique: boolean;
}

export class WordCountResult {
  @ApiProperty({ type: 'integer', description: 'How many words.', example: 3 })
  words: number;

  @ApiProperty({ description: 'Who asked: the caller kind.', example: 'key' })
  caller: string;
}

function countWords({ text, unique }: WordCountInput, context: ToolContext): WordCountResult {
  const words = text.split(/\s+/).filter(Boolean);
  return { words: unique ? new Set(words).size : words.length, caller: context.caller.kind };
}

export const WordCountToolModule = defineTool({
  name: 'word_count',
  title: 'Word count',
  description: 'Counts the words of a text.',
  input: WordCountInput,
  output: WordCountResult,
  cost: 2,
  timeoutMs: 5_000,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: countWords,
});
