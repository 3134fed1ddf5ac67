import { ApiProperty } from '@nestjs/swagger';
import { DailyLimitPatch, MonthlyLimitPatch, RateLimitPatch } from '../limits';
import { BoolField, StringField } from '../kernel/validation/fields';
import { ExternalIdField } from '../subjects';

/** A PATCH of a principal: only the fields given change; null returns a field to its default. */
export class UpdatePrincipalInput {
  @StringField({
    description:
      "Plan (free, pro, unlimited or the operator's); null: the plan its tokens name, else OAUTH_DEFAULT_PLAN.",
    nullable: true,
    maxLength: 50,
    example: 'pro',
  })
  plan?: string | null;

  @DailyLimitPatch()
  daily_limit?: number | null;

  @MonthlyLimitPatch()
  monthly_limit?: number | null;

  @RateLimitPatch()
  rate_limit?: number | null;

  @BoolField({
    description: "false: the principal's tokens get 401 until it is enabled again.",
    optional: true,
    example: false,
  })
  enabled?: boolean;

  @ExternalIdField(
    'The customer or account it belongs to; null: none. With OAUTH_EXTERNAL_ID_CLAIM set, its next token naming one replaces it.',
  )
  external_id?: string | null;
}

/** A principal as operators see it (docs/oauth.md). */
export class PrincipalView {
  @ApiProperty({ example: 'prn_5d0c3e8f1a2b4c6d7e8f9a0b1c2d3e4f' }) id: string;
  @ApiProperty({ example: 'https://login.example.com/realms/tools' }) issuer: string;
  @ApiProperty({ description: "The token's `sub`." }) subject: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'The client of its last token seen (`client_id`, else `azp`), as of its last sight; a principal is one subject whatever its clients.',
  })
  client_id: string | null;
  @ApiProperty({
    description:
      'Its plan: the one an operator set, else the one its last token named (OAUTH_PLAN_CLAIM), else OAUTH_DEFAULT_PLAN.',
  })
  plan: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The plan an operator set (PATCH); null: none, its tokens decide.',
  })
  operator_plan: string | null;
  @ApiProperty({ nullable: true, type: 'integer' }) daily_limit: number | null;
  @ApiProperty({ nullable: true, type: 'integer' }) monthly_limit: number | null;
  @ApiProperty({ nullable: true, type: 'integer' }) rate_limit: number | null;
  @ApiProperty() enabled: boolean;
  @ApiProperty({
    nullable: true,
    type: [String],
    example: ['services:execute'],
    description:
      'Every scope its tokens have carried: a caller must hold them all to change or delete it. null: none seen yet, which counts as `*`.',
  })
  scopes: string[] | null;
  @ApiProperty() first_seen_at: string;
  @ApiProperty() last_seen_at: string;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'acct_4711',
    description:
      'The customer or account it belongs to: the last an operator set (PATCH) or its tokens named (OAUTH_EXTERNAL_ID_CLAIM); null: none.',
  })
  external_id: string | null;
}

/** The answer to a DELETE of a principal. */
export class DeletedPrincipal {
  @ApiProperty({ example: 'prn_5d0c3e8f1a2b4c6d7e8f9a0b1c2d3e4f' }) id: string;
  @ApiProperty({ enum: [true] }) deleted: true;
}
