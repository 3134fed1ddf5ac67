import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { HeaderObject, ResponseObject } from '@nestjs/swagger';

/**
 * The error contract as OpenAPI sees it: every error is `{detail}`, a sentence or (400) a list of
 * pydantic-style issues. These classes exist for the document only; the exception filter writes
 * the bodies.
 */
export class ErrorResponse {
  @ApiProperty({ description: 'What went wrong, as a sentence.', example: 'Not authenticated' })
  detail: string;
}

export class ValidationIssueView {
  @ApiProperty({
    description: "Where the problem is: 'body', then the field name (and list index).",
    type: 'array',
    items: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    example: ['body', 'name'],
  })
  loc: (string | number)[];

  @ApiProperty({ description: 'The problem, for a person.', example: 'Field required' })
  msg: string;

  @ApiProperty({
    description:
      'The problem, for a program (pydantic names): missing, string_type, bool_type, int_type, greater_than_equal, less_than_equal, string_too_short, string_too_long, extra_forbidden, literal_error, list_type, dict_type, json_invalid, value_error.',
    example: 'missing',
  })
  type: string;
}

export class ValidationErrorResponse {
  @ApiProperty({ type: [ValidationIssueView], description: 'One entry per problem.' })
  detail: ValidationIssueView[];
}

export const integerHeader = (description: string): HeaderObject => ({
  description,
  schema: { type: 'integer' },
});

const RETRY_AFTER = integerHeader('Seconds to wait before retrying.');

export const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'Retry-After': RETRY_AFTER,
  'X-RateLimit-Limit': integerHeader(
    'Requests the bucket holds when full (the burst): `X-RateLimit-Remaining` never exceeds it.',
  ),
  'X-RateLimit-Remaining': integerHeader('Whole requests the bucket holds now.'),
  'X-RateLimit-Reset': integerHeader(
    'Seconds until the bucket is full again (on a 429: until one request fits).',
  ),
  'X-RateLimit-Policy': {
    description:
      'How the bucket refills: `<rate>;w=<window in seconds>;burst=<burst>`, e.g. `5;w=1;burst=15` (5 requests a second, 15 at most at once).',
    schema: { type: 'string', example: '5;w=1;burst=15' },
  },
};

interface ErrorDoc {
  description: string;
  example: unknown;
  headers?: Record<string, HeaderObject>;
  validation?: boolean;
}

/** What each error status means here, with a real example of its body. */
const ERRORS: Record<number, ErrorDoc> = {
  400: {
    description:
      'The body does not match the schema, is not a JSON object (`dict_type`) or is not JSON (`json_invalid`). `detail` lists every problem.',
    example: { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] },
    validation: true,
  },
  401: {
    description:
      'No usable key (`Not authenticated`) or an unknown, revoked or expired one (`Invalid API key`).',
    example: { detail: 'Not authenticated' },
    headers: {
      'WWW-Authenticate': { description: 'Always `Bearer`.', schema: { type: 'string' } },
    },
  },
  402: {
    description:
      "The call costs more credits than remain of the key's daily limit (it resets at the next UTC midnight) or monthly one (`Monthly request limit exceeded (<used>/<limit>). Resets in <d>d <h>h.`, at the next UTC month). Nothing is charged.",
    example: { detail: 'Daily request limit exceeded (100/100). Resets in 5h 12m.' },
    headers: {
      'Retry-After': integerHeader('Seconds until the next UTC midnight (or month).'),
    },
  },
  403: {
    description:
      'The key lacks the scope this operation needs, or the grant or target holds more than the caller (no escalation: scopes, limits, prices). For an OAuth token of a subject not yet known once OAUTH_MAX_PRINCIPALS exist: `This service accepts no new principal: the limit of <n> is reached.`',
    example: { detail: 'Insufficient permissions for this operation.' },
    headers: {
      'WWW-Authenticate': {
        description:
          'For a missing scope: `Bearer error="insufficient_scope", scope="<the scope needed>"` (with OAuth, `resource_metadata` too).',
        schema: { type: 'string' },
      },
    },
  },
  404: { description: 'No such resource.', example: { detail: 'API key not found' } },
  409: {
    description:
      'A conflict: the key is revoked, a request with this Idempotency-Key is still running, the configuration key is pinned by the environment, the principal to delete is disabled, or the run to give more time has ended.',
    example: { detail: 'API key is revoked' },
  },
  413: {
    description: 'The body is larger than the configured limit.',
    example: { detail: 'Request body too large: the limit is 1048576 bytes' },
  },
  415: {
    description: 'The body is not `application/json` (or `application/*+json`).',
    example: { detail: "Unsupported Media Type: send 'Content-Type: application/json'" },
  },
  422: {
    description: 'The Idempotency-Key was used before with a different request.',
    example: { detail: 'Idempotency-Key reused with a different request' },
  },
  429: {
    description:
      "Too many requests: the key's rate limit, or too many failed authentications from this address.",
    example: {
      detail: 'Rate limit exceeded: 5 requests per second. Retry after 1 second.',
    },
    headers: RATE_LIMIT_HEADERS,
  },
  500: {
    description: 'An unexpected failure; it is logged, never described. Retry, then check /health.',
    example: { detail: 'Internal Server Error' },
  },
  502: {
    description:
      'A service the tool depends on failed or answered with an error (a status a tool declares in `errors`).',
    example: { detail: 'The weather service answered 500' },
  },
  504: {
    description:
      'The tool did not finish within its deadline; its signal was aborted (a long-running call: `Prefer: respond-async`).',
    example: { detail: "Tool 'doctor' did not finish within 30000 ms" },
  },
  503: {
    description:
      "The data store cannot be reached (nothing is served unmetered), or the tool is at capacity (`Tool '<name>' is at capacity; retry shortly.`, not counted against the quota). Retry shortly.",
    example: {
      detail: 'Service temporarily unavailable: the data store cannot be reached. Retry shortly.',
    },
    headers: { 'Retry-After': RETRY_AFTER },
  },
};

/** The errors of every route behind a key, and of every route that reads a JSON body. */
export const KEYED_ERRORS = [401, 429, 500, 503] as const;
export const BODY_ERRORS = [400, 413, 415] as const;

/**
 * Documents error responses, each with the shared `{detail}` schema (the validation list for 400),
 * its headers and an example. Usable on a controller class or a method.
 */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ErrorResponse, ValidationErrorResponse),
    ...statuses.map((status) => {
      const doc = ERRORS[status];
      if (!doc) throw new Error(`No documentation for error status ${status}`);
      return ApiResponse({
        status,
        description: doc.description,
        headers: doc.headers,
        content: {
          'application/json': {
            schema: {
              $ref: getSchemaPath(doc.validation ? ValidationErrorResponse : ErrorResponse),
            },
            example: doc.example,
          },
        },
      });
    }),
  );
}

/**
 * The error responses of `statuses` as ApiErrors documents them, for an operation made without
 * decorators (a source's tool, src/transports/rest/source-tools.openapi.ts); `said` replaces a
 * status's description and example where the operation says more.
 */
export function errorResponses(
  statuses: readonly number[],
  said: Record<number, { description: string; example: object }> = {},
): Record<string, ResponseObject> {
  const responses: Record<string, ResponseObject> = {};
  for (const status of statuses) {
    const doc = { ...ERRORS[status], ...said[status] };
    responses[String(status)] = {
      description: doc.description,
      ...(doc.headers ? { headers: { ...doc.headers } } : {}),
      content: {
        'application/json': {
          schema: {
            $ref: getSchemaPath(doc.validation ? ValidationErrorResponse : ErrorResponse),
          },
          example: doc.example,
        },
      },
    };
  }
  return responses;
}
