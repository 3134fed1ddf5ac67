import { applyDecorators, type Type } from '@nestjs/common';
import { ApiOkResponse, ApiQuery } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';

/** The `Link` header of every list's page (src/kernel/http/page-cursor.ts sets it). */
export const PAGE_LINK = {
  Link: {
    description: 'While more remain: `<…?limit=N&cursor=…>; rel="next"` (a relative URL).',
    schema: { type: 'string' },
  },
};

/**
 * The OpenAPI of a list read a page at a time whose body is a bare array: its `cursor` and `limit`
 * (at most `maxPage`, the default) and the `Link` header to the next page (page-cursor.ts).
 */
export function ApiPage(type: Type<unknown>, maxPage: number): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: maxPage, default: maxPage },
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      schema: { type: 'string' },
      description: 'From the `Link` header of the previous page.',
    }),
    ApiOkResponse({ type: [type], headers: PAGE_LINK }),
  );
}

/** A list's page size, and the name its cursor had before every list took `cursor`. */
export interface CursorPageQuery {
  max: number;
  default: number;
  /** The deprecated name, still read: its schema and what it is. */
  alias?: { name: string; schema: SchemaObject; description: string };
}

/**
 * The OpenAPI of a list read a page at a time whose body is an object (`type`, carrying
 * `next_cursor`): its `cursor`, its deprecated alias if it has one, `limit`, and the `Link` header.
 */
export function ApiCursorPage(type: Type<unknown>, page: CursorPageQuery): MethodDecorator {
  const alias = page.alias;
  return applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: page.max, default: page.default },
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      schema: { type: 'string' },
      description: 'The `next_cursor` of the previous page (its `Link` header holds it too).',
    }),
    ...(alias
      ? [
          ApiQuery({
            name: alias.name,
            required: false,
            deprecated: true,
            schema: alias.schema,
            description: `Deprecated: use \`cursor\`. ${alias.description}`,
          }),
        ]
      : []),
    ApiOkResponse({ type, headers: PAGE_LINK }),
  );
}
