import { ApiProperty } from '@nestjs/swagger';
import { AuditEntryView } from '../audit';
import { ToolUsageView } from '../limits';
import { InvocationView } from '../invocations';

const BY_TOOL = {
  type: 'object',
  additionalProperties: { $ref: '#/components/schemas/ToolUsageView' },
  description: 'Per tool: its calls, their credits, and those that failed.',
  example: { greet: { calls: 10, credits: 10, failed: 0 } },
} as const;

/** What every key and principal spent on one UTC day, from their usage counters. */
export class DailyTotalsView {
  @ApiProperty({ example: '2026-11-22', description: 'A UTC day.' }) date: string;
  @ApiProperty({ type: 'integer', example: 120 }) calls: number;
  @ApiProperty({ type: 'integer', example: 131, description: 'Credits the calls cost.' })
  credits: number;
  @ApiProperty({ type: 'integer', example: 2, description: 'Calls that ended in a 5xx.' })
  failed: number;
  @ApiProperty(BY_TOOL) by_tool: Record<string, ToolUsageView>;
}

export class UsageSumView {
  @ApiProperty({ type: 'integer', example: 3600 }) calls: number;
  @ApiProperty({ type: 'integer', example: 3930 }) credits: number;
  @ApiProperty({ type: 'integer', example: 12 }) failed: number;
}

export class UsageTotalsView {
  @ApiProperty({ type: 'integer', example: 30, description: 'UTC days counted, today included.' })
  days: number;
  @ApiProperty({ type: UsageSumView, description: 'The sum of the days.' })
  totals: UsageSumView;
  @ApiProperty({ type: [DailyTotalsView], description: 'One entry a day, today first.' })
  history: DailyTotalsView[];
  @ApiProperty({
    type: 'integer',
    example: 14,
    description: 'Keys and principals that were used in the period (whose counters were read).',
  })
  subjects: number;
}

export class TopCallerView {
  @ApiProperty({ enum: ['key', 'principal'], example: 'key' }) kind: 'key' | 'principal';
  @ApiProperty({ example: 'key_3f2a9c1d0b7e6a54' }) id: string;
  @ApiProperty({
    example: 'ci-runner',
    description: "A key's name; a principal's subject at its issuer.",
  })
  name: string;
  @ApiProperty({ type: 'integer', example: 1200 }) calls: number;
  @ApiProperty({ type: 'integer', example: 1320 }) credits: number;
  @ApiProperty({ type: 'integer', example: 3 }) failed: number;
}

export class TopToolView {
  @ApiProperty({ example: 'greet' }) tool: string;
  @ApiProperty({ type: 'integer', example: 1200 }) calls: number;
  @ApiProperty({ type: 'integer', example: 1200 }) credits: number;
  @ApiProperty({ type: 'integer', example: 3 }) failed: number;
}

export class TopUsageView {
  @ApiProperty({ type: 'integer', example: 30 }) days: number;
  @ApiProperty({ type: [TopCallerView], description: 'By credits, then calls, most first.' })
  callers: TopCallerView[];
  @ApiProperty({ type: [TopToolView], description: 'By calls, then credits, most first.' })
  tools: TopToolView[];
}

export class StatusCountView {
  @ApiProperty({ type: 'integer', example: 401 }) status: number;
  @ApiProperty({ type: 'integer', example: 12 }) count: number;
}

export class ErrorCountsView {
  @ApiProperty({
    example: '2026-11-22T03:53:47.934Z',
    description: 'When this instance started counting: the counts are its own since then.',
  })
  since: string;
  @ApiProperty({ type: [StatusCountView], description: 'Answers of 400 and above, by status.' })
  statuses: StatusCountView[];
}

export class IssuerHealthView {
  @ApiProperty({ example: 'https://login.example.com/realms/tools' }) issuer: string;
  @ApiProperty({
    enum: ['ok', 'failing'],
    example: 'ok',
    description: '`ok`: its metadata and keys were fetched and its last request succeeded.',
  })
  status: 'ok' | 'failing';
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Why its last request failed.',
  })
  failure: string | null;
}

export class IssuersView {
  @ApiProperty({ type: [IssuerHealthView], description: 'Empty when OAuth is not configured.' })
  issuers: IssuerHealthView[];
}

export class PlanView {
  @ApiProperty({ example: 'pro' }) name: string;
  @ApiProperty({ type: 'integer', nullable: true, example: 10000 }) daily_limit: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 200000 }) monthly_limit: number | null;
  @ApiProperty({ type: 'integer', example: 50, description: 'Calls per rate-limit window.' })
  rate_limit: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { summarize: 5 },
    description: "What a tool costs on this plan, where it differs from the tool's own cost.",
  })
  tool_costs: Record<string, number>;
  @ApiProperty({ example: true, description: 'Whether new keys get this plan when none is named.' })
  default: boolean;
}

export class PlanList {
  @ApiProperty({ type: [PlanView] }) plans: PlanView[];
}

export class ToolAnnotationsView {
  @ApiProperty({ example: true }) readOnlyHint: boolean;
  @ApiProperty({ example: false }) destructiveHint: boolean;
  @ApiProperty({ example: false }) idempotentHint: boolean;
  @ApiProperty({ example: false }) openWorldHint: boolean;
}

export class ToolDetailsView {
  @ApiProperty({ example: 'greet' }) name: string;
  @ApiProperty({ example: 'Greet' }) title: string;
  @ApiProperty({ example: 'Greet a user by name.' }) description: string;
  @ApiProperty({ example: '/api/v1/services/greet' }) path: string;
  @ApiProperty({ example: 'services:execute:greet' }) scope: string;
  @ApiProperty({ type: 'integer', example: 1, description: "The tool's own cost, in credits." })
  cost: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { free: 1, pro: 1, unlimited: 1 },
    description: 'What a call costs on each plan.',
  })
  cost_by_plan: Record<string, number>;
  @ApiProperty({ type: 'integer', example: 30000, description: 'Its deadline.' })
  timeout_ms: number;
  @ApiProperty({ type: 'integer', example: 64, description: 'Calls at once, per instance.' })
  concurrency: number;
  @ApiProperty({ type: 'integer', example: 64, description: 'Calls waiting, per instance.' })
  queue: number;
  @ApiProperty({ type: ToolAnnotationsView, description: "MCP's hints, with their defaults." })
  annotations: ToolAnnotationsView;
  @ApiProperty({ type: 'object', additionalProperties: true }) input_schema: Record<
    string,
    unknown
  >;
  @ApiProperty({ type: 'object', additionalProperties: true }) output_schema: Record<
    string,
    unknown
  >;
}

export class ToolDetailsList {
  @ApiProperty({ type: [ToolDetailsView] }) tools: ToolDetailsView[];
}

/** A long-running call as an operator sees it: whose it is, beside what its caller sees. */
export class OperatorInvocationView extends InvocationView {
  @ApiProperty({
    example: 'key_3f2a9c1d0b7e6a54',
    description: 'The key or principal that started it.',
  })
  caller_id: string;
}

export class AuditSearchPage {
  @ApiProperty({ type: [AuditEntryView], description: 'Newest first.' })
  entries: AuditEntryView[];
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 4120,
    deprecated: true,
    description: 'Deprecated: `next_cursor` as a number, the `before` of the next page.',
  })
  next_before: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '4120',
    description:
      'While older entries remain to be searched: the `cursor` of the next page (a page searches a bounded number of entries, so it may hold fewer than `limit`, even none).',
  })
  next_cursor: string | null;
}
