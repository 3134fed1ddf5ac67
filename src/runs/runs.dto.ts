import { ApiProperty } from '@nestjs/swagger';
import { IsObject, ValidateIf } from 'class-validator';
import { IntField, StringField, StringListField } from '../kernel/validation/fields';

/** A run's budget: 1 credit to a billion. */
export const RUN_BUDGET = { minimum: 1, maximum: 1_000_000_000 };
/** A run's time: a minute to a week; a day unless said. */
export const RUN_TTL = { minimum: 60, maximum: 604_800, default: 86_400 };
/** A run's label: 1 to this many characters, a label. */
export const RUN_LABEL_MAX_LENGTH = 200;
/** A run's metadata: at most this many pairs, keys and values of at most these lengths. */
export const RUN_METADATA = { pairs: 16, key: 64, value: 500 };

export class CreateRunInput {
  @IntField({
    description: 'Credits the run may spend, at most.',
    ...RUN_BUDGET,
    example: 500,
  })
  budget: number;

  @IntField({
    description:
      "How long the run lasts, in seconds (a principal's run: at most until the token that makes it expires).",
    optional: true,
    ...RUN_TTL,
  })
  ttl_seconds?: number;

  @StringListField({
    description:
      "Tool scopes of the run, each held by its creator (services:read, services:execute, services:execute:<tool>); default: the creator's.",
    optional: true,
    maxItems: 50,
    example: ['services:execute:greet'],
  })
  scopes?: string[];

  @StringField({
    description: 'A label to recognise the run by: no control characters or bidi controls.',
    optional: true,
    minLength: 1,
    maxLength: RUN_LABEL_MAX_LENGTH,
    label: true,
    example: 'nightly-triage',
  })
  label?: string;

  @ApiProperty({
    description: `At most ${RUN_METADATA.pairs} string pairs, kept with the run.`,
    required: false,
    type: Object,
    additionalProperties: { type: 'string' },
    example: { ticket: 'OPS-1234' },
  })
  @ValidateIf((_, value) => value !== undefined)
  @IsObject({ message: 'Input should be a valid dictionary' })
  metadata?: Record<string, string>;
}

export class UpdateRunInput {
  @IntField({
    description: 'A new budget (below what the run spent, its next calls are refused).',
    optional: true,
    ...RUN_BUDGET,
  })
  budget?: number;

  @IntField({
    description:
      "The run lasts this many seconds from now (a principal's run: at most until the token sent expires, and with only the scopes that token holds).",
    optional: true,
    minimum: RUN_TTL.minimum,
    maximum: RUN_TTL.maximum,
  })
  ttl_seconds?: number;

  @StringField({
    description: 'A new label.',
    optional: true,
    minLength: 1,
    maxLength: RUN_LABEL_MAX_LENGTH,
    label: true,
  })
  label?: string;
}

export class RunParentView {
  @ApiProperty({ enum: ['key', 'principal'] }) kind: 'key' | 'principal';
  @ApiProperty({ example: 'key_0123456789abcdef' }) id: string;
}

export class RunView {
  @ApiProperty({ example: 'run_0190f3c9a2b4d5e6f708192a3b' }) id: string;
  @ApiProperty() budget: number;
  @ApiProperty() spent: number;
  @ApiProperty() remaining: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ type: String, nullable: true }) label: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  metadata: Record<string, string>;
  @ApiProperty({ type: RunParentView }) parent: RunParentView;
  @ApiProperty({ enum: ['active', 'ended', 'expired'] }) status: 'active' | 'ended' | 'expired';
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['deleted', 'expired', 'parent_revoked', 'parent_disabled'],
  })
  ended_reason: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) ended_at: string | null;
  @ApiProperty({
    description: 'Credits spent, per tool (a run shown alone).',
    required: false,
    type: Object,
    additionalProperties: { type: 'integer' },
  })
  spent_by_tool?: Record<string, number>;
}

/** `/api/v1/auth/me` for a run's token: the run, and its parent's kind and id only. */
export class RunMe {
  @ApiProperty({ enum: ['run'] }) kind: 'run';
  @ApiProperty({ example: 'run_0190f3c9a2b4d5e6f708192a3b' }) run_id: string;
  @ApiProperty({ type: String, nullable: true }) label: string | null;
  @ApiProperty({ type: RunParentView }) parent: RunParentView;
  @ApiProperty({ type: [String], description: 'What the run may do now.' }) scopes: string[];
  @ApiProperty() budget: number;
  @ApiProperty() spent: number;
  @ApiProperty() remaining: number;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
}

export class CreatedRun extends RunView {
  @ApiProperty({
    description: "The run's bearer token: shown once, never again.",
    example: 'sk_run_…',
  })
  token: string;
}

export class RunPage {
  @ApiProperty({ type: [RunView] }) runs: RunView[];
  @ApiProperty({ type: String, nullable: true, description: 'The `before` of the next page.' })
  next_cursor: string | null;
}
