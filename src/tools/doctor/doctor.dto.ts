import { ApiProperty } from '@nestjs/swagger';
import { BoolField } from '../../kernel/validation/fields';

export class DoctorInput {
  @BoolField({
    description: 'When true, fixable issues are fixed, then every check runs again.',
    optional: true,
    default: false,
  })
  fix: boolean;
}

export class CheckRecordView {
  @ApiProperty({ description: 'Name of the check.', example: 'cache_directory' })
  name: string;

  @ApiProperty({ enum: ['pass', 'warn', 'fail'], description: 'Outcome of the check.' })
  status: 'pass' | 'warn' | 'fail';

  @ApiProperty({ description: 'What was found and what to do about it.' })
  message: string;

  @ApiProperty({ required: false, description: 'Present (true) when the issue can be auto-fixed.' })
  fixable?: boolean;

  @ApiProperty({
    required: false,
    format: 'date-time',
    description:
      'When the result was found, for a check that answers its last result between runs (`ledger`: at most once every DOCTOR_LEDGER_INTERVAL_SECONDS an instance).',
  })
  checked_at?: string;
}

export class DoctorResult {
  @ApiProperty({ type: [CheckRecordView], description: 'All checks run, in a stable order.' })
  checks: CheckRecordView[];

  @ApiProperty({ description: 'Whether any check failed.' })
  has_failures: boolean;
}
