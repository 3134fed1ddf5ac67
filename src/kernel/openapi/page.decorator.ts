import { applyDecorators, type Type } from '@nestjs/common';
import { ApiOkResponse, ApiQuery } from '@nestjs/swagger';

/**
 * The OpenAPI of a list read a page at a time: its `cursor` and `limit` (at most `maxPage`, the
 * default) and the `Link` header to the next page (key-cursor.ts makes both).
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
    ApiOkResponse({
      type: [type],
      headers: {
        Link: {
          description: 'While more remain: `<…?limit=N&cursor=…>; rel="next"` (a relative URL).',
          schema: { type: 'string' },
        },
      },
    }),
  );
}
