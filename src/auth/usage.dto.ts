import { ApiProperty } from '@nestjs/swagger';

export class DailyUsageView {
  @ApiProperty({ example: '2025-01-01', description: 'A UTC day.' }) date: string;
  @ApiProperty({ type: 'integer', example: 12 }) used: number;
}

export class UsageView {
  @ApiProperty({ example: 'free' }) plan: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Calls per UTC day; null: no limit.',
    example: 100,
  })
  daily_limit: number | null;
  @ApiProperty({ type: 'integer', example: 12 }) used: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 88 }) remaining: number | null;
  @ApiProperty({ description: 'Next UTC midnight, ISO 8601.', example: '2025-01-02T00:00:00.000Z' })
  resets_at: string;
  @ApiProperty({
    type: [DailyUsageView],
    description: 'Calls per UTC day, newest first, days without calls as 0 (`?days=`, 1 to 90).',
    example: [
      { date: '2025-01-01', used: 12 },
      { date: '2024-12-31', used: 0 },
    ],
  })
  history: DailyUsageView[];
}
