import { ApiProperty } from '@nestjs/swagger';

export class ToolUsageView {
  @ApiProperty({ type: 'integer', example: 10 }) calls: number;
  @ApiProperty({ type: 'integer', example: 10, description: 'Credits the calls cost.' })
  credits: number;
  @ApiProperty({
    type: 'integer',
    example: 0,
    description: 'Calls that ended in a 5xx (504 included).',
  })
  failed: number;
}

export class DailyUsageView {
  @ApiProperty({ example: '2025-01-01', description: 'A UTC day.' }) date: string;
  @ApiProperty({ type: 'integer', example: 12, description: 'Credits counted that day.' })
  used: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/ToolUsageView' },
    description: 'Per tool: its calls, their credits, and those that failed.',
    example: {
      greet: { calls: 10, credits: 10, failed: 0 },
      summarize: { calls: 1, credits: 2, failed: 0 },
    },
  })
  by_tool: Record<string, ToolUsageView>;
}

export class MonthlyUsageView {
  @ApiProperty({ type: 'integer', example: 200000, description: 'Credits per UTC calendar month.' })
  limit: number;
  @ApiProperty({ type: 'integer', example: 1200 }) used: number;
  @ApiProperty({ type: 'integer', example: 198800 }) remaining: number;
  @ApiProperty({
    description: 'The next UTC month, ISO 8601.',
    example: '2025-02-01T00:00:00.000Z',
  })
  resets_at: string;
}

export class UsageView {
  @ApiProperty({ example: 'free' }) plan: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "Credits per UTC day (a call costs its tool's cost); null: no limit.",
    example: 100,
  })
  daily_limit: number | null;
  @ApiProperty({ type: 'integer', example: 12 }) used: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 88 }) remaining: number | null;
  @ApiProperty({ description: 'Next UTC midnight, ISO 8601.', example: '2025-01-02T00:00:00.000Z' })
  resets_at: string;
  @ApiProperty({
    type: MonthlyUsageView,
    nullable: true,
    description: 'This UTC month against the monthly limit; null without one.',
  })
  monthly: MonthlyUsageView | null;
  @ApiProperty({
    type: [DailyUsageView],
    description:
      'Credits per UTC day, newest first, days without calls as 0 (`?days=`, 1 to 90), per tool.',
    example: [
      { date: '2025-01-01', used: 12, by_tool: { greet: { calls: 12, credits: 12, failed: 0 } } },
      { date: '2024-12-31', used: 0, by_tool: {} },
    ],
  })
  history: DailyUsageView[];
}
