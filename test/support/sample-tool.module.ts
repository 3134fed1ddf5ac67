/**
 * A complete tool in one file, as README "Adding a tool" shows it. In the service the same code is
 * split into src/tools/word_count/ (dto, service, controller, module) plus one line in app.module.ts;
 * here a test mounts the module beside the server's modules. Nothing else is written for it: its route,
 * validation, auth, scope, rate limit, quota, discovery entry, OpenAPI entry and metrics all come
 * from `@Tool()` and the field decorators.
 */
import { Body, Injectable, Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { BoolField, StringField } from '../../src/kernel/validation/fields';
import { Tool, ToolController } from '../../src/tools/tool.decorator';

// The input: each field decorator gives both the validation rule and the JSON Schema property.
export class WordCountInput {
  @StringField({
    description: 'The text whose words are counted.',
    minLength: 1,
    maxLength: 10_000,
    example: 'To be or not to be',
  })
  text: string;

  @BoolField({
    description: 'Count each distinct word once, ignoring case.',
    optional: true,
    default: false,
  })
  distinct: boolean;
}

// The output: plain @ApiProperty, for the output schema and the OpenAPI 200 response.
export class WordCountResult {
  @ApiProperty({ type: 'integer', description: 'How many words.', example: 6 })
  words: number;
}

// The work itself, free of HTTP: easy to unit-test.
@Injectable()
export class WordCountService {
  count({ text, distinct }: WordCountInput): WordCountResult {
    const words = text.split(/\s+/).filter(Boolean);
    // toLowerCase, not toLocaleLowerCase: the same answer whatever the server's locale.
    return { words: distinct ? new Set(words.map((w) => w.toLowerCase())).size : words.length };
  }
}

// The route: POST /api/v1/services/word_count, scope services:execute, metered, documented.
@ToolController()
export class WordCountController {
  constructor(private readonly counter: WordCountService) {}

  @Tool({
    name: 'word_count',
    description: 'Count the words of a text.',
    input: WordCountInput,
    output: WordCountResult,
  })
  count(@Body() input: WordCountInput): WordCountResult {
    return this.counter.count(input);
  }
}

@Module({ controllers: [WordCountController], providers: [WordCountService] })
export class WordCountModule {}
