import { GREET_INPUT_SCHEMA, GREET_OUTPUT_SCHEMA } from '../../../test/support/greet-schema';
import { GreetInput, GreetResult } from '../../tools/greet/greet.dto';
import { IntField, StringField } from './fields';
import { jsonSchemaOf } from './json-schema';

class Nullables {
  @StringField({ description: 'A lane.', nullable: true, enum: ['fast', 'slow'] })
  lane?: string | null;

  @IntField({ description: 'A limit.', nullable: true, minimum: 0 })
  limit?: number | null;
}

describe('jsonSchemaOf', () => {
  it('derives the greet input schema from its field decorators', () => {
    expect(jsonSchemaOf(GreetInput)).toMatchObject(GREET_INPUT_SCHEMA);
  });

  it('lists the output fields as required', () => {
    expect(jsonSchemaOf(GreetResult, false)).toMatchObject(GREET_OUTPUT_SCHEMA);
  });

  it('spells nullable as a null type, and lists null in a nullable enum', () => {
    expect(jsonSchemaOf(Nullables).properties).toMatchObject({
      lane: { type: ['string', 'null'], enum: ['fast', 'slow', null] },
      limit: { type: ['integer', 'null'], minimum: 0 },
    });
  });
});
