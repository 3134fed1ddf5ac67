import { ValidationPipe } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsEmail } from 'class-validator';
import { ValidationFailed } from '../errors/api-error';
import { characters, compiledValidatorFor } from './compiled.validator';
import { BoolField, IntField, StringField, StringListField } from './fields';
import { jsonSchemaOf } from './json-schema';
import { ApiValidationPipe } from './validation.pipe';

class Ticket {
  @StringField({ description: 'Title.', minLength: 1, maxLength: 5 })
  title: string;

  @StringField({ description: 'Lane.', nullable: true, enum: ['fast', 'slow'] })
  lane?: string | null;

  @IntField({ description: 'Priority.', optional: true, minimum: 1, maximum: 3, default: 2 })
  priority: number;

  @StringListField({ description: 'Tags.', optional: true, maxItems: 3 })
  tags?: string[];

  @BoolField({ description: 'Urgent.', optional: true, default: false })
  urgent: boolean;
}

/** A team's own DTO: a raw class-validator decorator beside the field decorators. */
class Signup {
  @IsEmail({}, { message: 'Value error, not an email address' })
  email: string;

  @BoolField({ description: 'News by mail.', optional: true, default: true })
  news: boolean;
}

/** A property with a schema only (no validation): not a declared field. */
class Annotated {
  @StringField({ description: 'Name.' })
  name: string;

  @ApiProperty({ description: 'Documented, never validated.', required: false })
  note?: string;
}

const pipe = new ApiValidationPipe();

async function validate(dto: new () => object, body: unknown): Promise<unknown> {
  try {
    return await pipe.transform(body, { type: 'body', metatype: dto });
  } catch (error) {
    if (error instanceof ValidationFailed) return error.issues;
    throw error;
  }
}

describe('the compiled validator', () => {
  it('compiles a DTO made of field decorators only', () => {
    expect(compiledValidatorFor(Ticket)).not.toBeNull();
    expect(compiledValidatorFor(Signup)).toBeNull();
    expect(compiledValidatorFor(Annotated)).toBeNull();
  });

  it('calls neither class-transformer nor class-validator for such a DTO', async () => {
    // Nest's ValidationPipe.transform is the one way to them (plainToInstance, validate).
    const library = jest.spyOn(ValidationPipe.prototype, 'transform');
    try {
      await validate(Ticket, { title: 'a' });
      await validate(Ticket, { title: '', x: 1 });
      expect(library).not.toHaveBeenCalled();
      await validate(Signup, { email: 'a@example.com' });
      expect(library).toHaveBeenCalledTimes(1);
    } finally {
      library.mockRestore();
    }
  });

  it('hands the handler an instance of the DTO with the stated defaults', async () => {
    const ticket = await validate(Ticket, { title: 'a', tags: ['x'] });
    expect(ticket).toBeInstanceOf(Ticket);
    expect(ticket).toEqual({ title: 'a', tags: ['x'], priority: 2, urgent: false });
    const given = await validate(Ticket, { urgent: true, title: 'b', priority: 3 });
    expect(given).toEqual({ title: 'b', priority: 3, urgent: true });
  });

  it('reports one entry per field, type errors first, declared fields before extras', async () => {
    expect(
      await validate(Ticket, {
        x: 1,
        tags: ['a', 'b', 'c', 'd', 5],
        priority: 2.5,
        lane: 'medium',
        title: '',
        y: 2,
      }),
    ).toEqual([
      {
        loc: ['body', 'title'],
        msg: 'String should have at least 1 character',
        type: 'string_too_short',
      },
      { loc: ['body', 'lane'], msg: "Input should be 'fast', 'slow'", type: 'literal_error' },
      { loc: ['body', 'priority'], msg: 'Input should be a valid integer', type: 'int_type' },
      { loc: ['body', 'tags'], msg: 'Input should be a valid string', type: 'string_type' },
      { loc: ['body', 'x'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      { loc: ['body', 'y'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
    expect(await validate(Ticket, { title: 'abcdef', tags: ['a', 'b', 'c', 'd'] })).toEqual([
      {
        loc: ['body', 'title'],
        msg: 'String should have at most 5 characters',
        type: 'string_too_long',
      },
      {
        loc: ['body', 'tags'],
        msg: 'List should have at most 3 items after validation, not 4',
        type: 'too_long',
      },
    ]);
  });

  it('takes null for a nullable field, enum or not, and publishes it so', async () => {
    expect(await validate(Ticket, { title: 'a', lane: null })).toMatchObject({ lane: null });
    expect(jsonSchemaOf(Ticket).properties).toMatchObject({
      lane: { type: ['string', 'null'], enum: ['fast', 'slow', null] },
    });
    expect(await validate(Ticket, { title: 'a', urgent: null })).toEqual([
      { loc: ['body', 'urgent'], msg: 'Input should be a valid boolean', type: 'bool_type' },
    ]);
  });

  it('checks one pass at most per field: a list of 200,000 wrong items is one entry', async () => {
    const tags = Array<number>(200_000).fill(1);
    expect(await validate(Ticket, { title: 'a', tags })).toEqual([
      { loc: ['body', 'tags'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
  });

  it('treats __proto__, constructor and prototype as unknown fields, and pollutes nothing', async () => {
    const body = JSON.parse(
      '{"title":"a","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"prototype":1}',
    ) as unknown;
    expect(await validate(Ticket, body)).toEqual(
      ['__proto__', 'constructor', 'prototype'].map((key) => ({
        loc: ['body', key],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      })),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const valid = (await validate(Ticket, { title: 'a' })) as object;
    expect(Object.getPrototypeOf(valid)).toBe(Ticket.prototype);
  });

  it('counts characters as class-validator does', () => {
    expect(characters('Alice')).toBe(5);
    expect(characters('😀😀')).toBe(2);
    expect(characters('❤️')).toBe(1);
    expect(characters('\ufe0f')).toBe(1);
    expect(characters('\ud800x')).toBe(2);
  });
});

describe('a DTO with raw class-validator decorators', () => {
  it('is validated by class-validator, in the same shape, with the stated defaults', async () => {
    expect(await validate(Signup, { email: 'a@example.com' })).toEqual({
      email: 'a@example.com',
      news: true,
    });
    expect(await validate(Signup, { email: 'nope', news: 'yes', x: 1 })).toEqual([
      { loc: ['body', 'email'], msg: 'Value error, not an email address', type: 'value_error' },
      { loc: ['body', 'news'], msg: 'Input should be a valid boolean', type: 'bool_type' },
      { loc: ['body', 'x'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
    expect(await validate(Signup, {})).toEqual([
      { loc: ['body', 'email'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('refuses a field that has a schema but no validation, as before', async () => {
    expect(await validate(Annotated, { name: 'a', note: 'n' })).toEqual([
      { loc: ['body', 'note'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });
});
