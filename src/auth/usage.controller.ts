import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { CurrentKey } from './auth.decorators';
import { ApiErrors, KEYED_ERRORS } from '../docs/api-errors';
import type { AuthenticatedKey } from './authenticated-key';
import { QuotaService } from '../limits/quota.service';

class UsageView {
  @ApiProperty() plan: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Calls per UTC day; null: no limit.',
  })
  daily_limit: number | null;
  @ApiProperty({ type: 'integer' }) used: number;
  @ApiProperty({ type: 'integer', nullable: true }) remaining: number | null;
  @ApiProperty({ description: 'Next UTC midnight, ISO 8601.' }) resets_at: string;
}

@ApiTags('usage')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/usage')
export class UsageController {
  constructor(private readonly quota: QuotaService) {}

  /** Today's usage of the calling key. */
  @Get()
  @ApiOperation({ operationId: 'getUsage', summary: "Today's usage of the calling key." })
  @ApiOkResponse({ type: UsageView })
  async usage(@CurrentKey() key: AuthenticatedKey): Promise<UsageView> {
    const state = await this.quota.usage(key);
    return {
      plan: key.plan,
      daily_limit: state.limit,
      used: state.used,
      remaining: state.remaining,
      resets_at: state.resetsAt.toISOString(),
    };
  }
}
