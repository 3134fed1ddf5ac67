import { pageCursor } from '../kernel/http/page-cursor';
import { ApiCursorPage } from '../kernel/openapi/page.decorator';
import { invalidQueryValue, queryInts } from '../kernel/validation/query';
import type { Type } from '@nestjs/common';

/** An entry's id as a cursor: the decimal the service issued as `next_cursor`. */
const ENTRY_ID = /^[1-9]\d{0,15}$/;

/**
 * Where a page of the audit trail starts and how long it is: `cursor` (the `next_cursor` of the
 * previous page) or its deprecated alias `before` (an entry's id, read as it always was), and
 * `limit` (1 to `max`, default 100). Only entries older than the cursor's entry follow.
 */
export function auditPage(
  query: Record<string, unknown>,
  max: number,
): { limit: number; before?: number } {
  const size = { min: 1, max, default: 100 };
  const from = pageCursor(query, 'before');
  if (from?.name !== 'cursor') {
    const read = queryInts(query, {
      limit: size,
      before: { min: 1, max: Number.MAX_SAFE_INTEGER },
    });
    return { limit: read.limit as number, before: read.before };
  }
  const { limit } = queryInts(query, { limit: size });
  const cursor = typeof from.value === 'string' && ENTRY_ID.test(from.value) && Number(from.value);
  if (!cursor || cursor > Number.MAX_SAFE_INTEGER) {
    throw invalidQueryValue('cursor', 'this cursor was not issued by the service');
  }
  return { limit: limit as number, before: cursor };
}

/** The OpenAPI of a page of the audit trail (`type`): `limit`, `cursor`, `before`, `Link`. */
export function ApiAuditPage(type: Type<unknown>, max: number): MethodDecorator {
  return ApiCursorPage(type, {
    max,
    default: 100,
    alias: {
      name: 'before',
      schema: { type: 'integer', minimum: 1 },
      description: 'Only entries older than this id (`next_before`, or the last id of a page).',
    },
  });
}
