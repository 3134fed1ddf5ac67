import { ApiProperty, ApiQuery } from '@nestjs/swagger';
import { LABEL_PATTERN } from '../kernel/common/text';
import { BoolField, IntField, StringField, StringListField } from '../kernel/validation/fields';
import { DailyLimitPatch, LIMIT_BOUNDS, MonthlyLimitPatch, RateLimitPatch } from '../limits';
import { SCOPE_TEMPLATES } from '../kernel/auth/scopes';

/** A key's name: 1 to this many characters, a label (no control or bidi characters). */
export const KEY_NAME_MAX_LENGTH = 200;
/** An external id: the rule of a key's name (1 to 200 characters, a label). */
export const EXTERNAL_ID_MAX_LENGTH = KEY_NAME_MAX_LENGTH;

/**
 * The customer or account a key or principal belongs to, as the operator names it: a label of 1
 * to 200 characters, as a key's name; null (where `nullable`): none.
 */
export function ExternalIdField(description: string): PropertyDecorator {
  return StringField({
    description,
    nullable: true,
    minLength: 1,
    maxLength: EXTERNAL_ID_MAX_LENGTH,
    label: true,
    example: 'acct_4711',
  });
}

/** The `external_id` query parameter of a list: only the records of exactly that external id. */
export function ApiExternalIdQuery(): MethodDecorator {
  return ApiQuery({
    name: 'external_id',
    required: false,
    description: 'Only those of exactly this external id.',
    schema: {
      type: 'string',
      minLength: 1,
      maxLength: EXTERNAL_ID_MAX_LENGTH,
      pattern: LABEL_PATTERN,
    },
  });
}

export class CreateApiKeyInput {
  @StringField({
    description:
      'A name to recognise the key by: no control characters, bidi controls or lone surrogates.',
    minLength: 1,
    maxLength: KEY_NAME_MAX_LENGTH,
    label: true,
    example: 'ci-runner',
  })
  name: string;

  @StringListField({
    description:
      "Scopes to grant: services:read, services:execute, admin:read, admin:write, '<resource>:*' or '*'.",
    optional: true,
    maxItems: 20,
    example: ['services:read', 'services:execute'],
  })
  scopes?: string[];

  @StringField({
    description: 'A named set of scopes, instead of `scopes`.',
    optional: true,
    enum: Object.keys(SCOPE_TEMPLATES),
  })
  scope_template?: string;

  @StringField({
    description: 'Plan: free (default), pro or unlimited.',
    optional: true,
    maxLength: 50,
  })
  plan?: string;

  @IntField({
    description: "Credits per UTC day (a call costs its tool's cost), beating the plan's.",
    nullable: true,
    ...LIMIT_BOUNDS.daily_limit,
  })
  daily_limit?: number | null;

  @IntField({
    description: "Credits per UTC calendar month, beating the plan's.",
    nullable: true,
    ...LIMIT_BOUNDS.monthly_limit,
  })
  monthly_limit?: number | null;

  @IntField({
    description: "Calls per rate-limit window (a second by default), beating the plan's.",
    nullable: true,
    ...LIMIT_BOUNDS.rate_limit,
  })
  rate_limit?: number | null;

  @IntField({
    description: 'Days until the key expires; none: never.',
    nullable: true,
    minimum: 1,
    maximum: 3650,
  })
  expires_in_days?: number | null;

  @ExternalIdField(
    'The customer or account the key belongs to: no control characters, bidi controls or lone surrogates; none: null.',
  )
  external_id?: string | null;
}

/** A PATCH of a key: only the fields given change; a null limit falls back to the plan's. */
export class UpdateApiKeyInput {
  @StringField({
    description: 'A new name: no control characters, bidi controls or lone surrogates.',
    optional: true,
    minLength: 1,
    maxLength: KEY_NAME_MAX_LENGTH,
    label: true,
    example: 'ci-runner-2',
  })
  name?: string;

  @StringListField({
    description: 'The scopes the key holds from now on (replacing its current ones).',
    optional: true,
    maxItems: 20,
    example: ['services:execute'],
  })
  scopes?: string[];

  @StringField({ description: 'Plan: free, pro or unlimited.', optional: true, maxLength: 50 })
  plan?: string;

  @DailyLimitPatch()
  daily_limit?: number | null;

  @MonthlyLimitPatch()
  monthly_limit?: number | null;

  @RateLimitPatch()
  rate_limit?: number | null;

  @BoolField({
    description: 'false: the key gets 401 until enabled again.',
    optional: true,
    example: false,
  })
  enabled?: boolean;

  @ExternalIdField('The customer or account the key belongs to from now on; null: none.')
  external_id?: string | null;
}

/** The longest a rotated-out secret may stay valid: a week. */
export const MAX_GRACE_SECONDS = 604_800;

export class RotateApiKeyInput {
  @IntField({
    description: 'Seconds the previous secret keeps working (0: none, at most a week).',
    optional: true,
    minimum: 0,
    maximum: MAX_GRACE_SECONDS,
    default: 0,
    example: 3600,
  })
  grace_seconds?: number;
}

/** The public view of a key, in answers and the CLI: everything but the hash, and its status now. */
export class ApiKeyView {
  @ApiProperty({ example: 'key_3f2a9c1d0b7e6a54' }) id: string;
  @ApiProperty({ example: 'ci-runner' }) name: string;
  @ApiProperty({
    description: 'The first characters of the key, to recognise it.',
    example: 'sk_1a2b3c4d',
  })
  prefix: string;
  @ApiProperty({ type: [String], example: ['services:read', 'services:execute'] })
  scopes: string[];
  @ApiProperty({ example: 'free' }) plan: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 500,
    description: "Credits per UTC day; null: the plan's.",
  })
  daily_limit: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: "Credits per UTC calendar month; null: the plan's.",
  })
  monthly_limit: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: "Calls per rate-limit window (a second by default); null: the plan's.",
  })
  rate_limit: number | null;
  @ApiProperty({ example: '2025-01-01T12:00:00.000Z' }) created_at: string;
  @ApiProperty({ nullable: true, type: String, example: null }) expires_at: string | null;
  @ApiProperty({ nullable: true, type: String, example: null }) revoked_at: string | null;
  @ApiProperty({ nullable: true, type: String, example: '2025-01-02T08:30:00.000Z' })
  last_used_at: string | null;
  @ApiProperty({ description: 'A disabled key gets 401 until enabled again.', example: true })
  enabled: boolean;
  @ApiProperty({ enum: ['active', 'disabled', 'revoked', 'expired'], example: 'active' })
  status: 'active' | 'disabled' | 'revoked' | 'expired';
  @ApiProperty({
    nullable: true,
    type: String,
    example: '2025-01-02T13:00:00.000Z',
    description: 'While a rotation grace runs: when the previous secret stops working; else null.',
  })
  previous_key_expires_at: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'acct_4711',
    description: 'The customer or account the key belongs to; null: none.',
  })
  external_id: string | null;
}

export class CreatedApiKey extends ApiKeyView {
  @ApiProperty({ description: 'The key itself. Shown this once; only its hash is stored.' })
  key: string;
}

export class RevokedApiKey {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['revoked'] }) status: 'revoked';
}

/** `/api/v1/auth/me` for a key. */
export class Me {
  @ApiProperty() key_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty() plan: string;
  @ApiProperty({ enum: ['api_key'] }) auth_method: 'api_key';
  @ApiProperty() created_at: string;
  @ApiProperty({ nullable: true, type: String }) expires_at: string | null;
}

/** `/api/v1/auth/me` for an OAuth access token (docs/oauth.md). */
export class OAuthMe {
  @ApiProperty({ enum: ['oauth'] }) auth_method: 'oauth';
  @ApiProperty({ description: 'The principal the token speaks for: issuer, client and subject.' })
  principal_id: string;
  @ApiProperty() issuer: string;
  @ApiProperty() subject: string;
  @ApiProperty({ nullable: true, type: String }) client_id: string | null;
  @ApiProperty({ type: [String], description: "The token's scopes the service knows." })
  scopes: string[];
  @ApiProperty() plan: string;
  @ApiProperty({ description: "The token's expiry (`exp`)." }) expires_at: string;
}
