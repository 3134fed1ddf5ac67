import { GreetInput, GreetResult } from '../tools/greet/greet.dto';
import { jsonSchemaOf } from './json-schema';

describe('jsonSchemaOf', () => {
  it('derives the greet input schema from its field decorators', () => {
    const schema = jsonSchemaOf(GreetInput);
    expect(schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        shout: { type: 'boolean', default: false },
        times: { type: 'integer', minimum: 1, maximum: 100, default: 1 },
      },
    });
  });

  it('lists the output fields as required', () => {
    expect(jsonSchemaOf(GreetResult, false)).toMatchObject({
      required: ['message', 'times'],
      properties: { message: { type: 'string' }, times: { type: 'integer' } },
    });
  });
});
