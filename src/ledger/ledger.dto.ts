import { ApiProperty } from '@nestjs/swagger';
import type { LedgerEntry } from './ledger-entry';
import type { LedgerPage } from './ledger.service';

/** Who an entry counts against, as the OpenAPI document shows it (LedgerEntry's `subject`). */
export class LedgerSubjectView {
  @ApiProperty({ enum: ['key', 'principal'] }) kind: 'key' | 'principal';
  @ApiProperty({ example: 'key_0123456789abcdef' }) id: string;
  @ApiProperty({ type: String, nullable: true, example: 'cus_NffrFeUfNV2Hib' })
  external_id: string | null;
}

/** One entry of the ledger (LedgerEntry), as the OpenAPI document shows it. */
export class LedgerEntryView implements LedgerEntry {
  @ApiProperty({ example: 'le_0193f5a2c4e1a8b3c2d1e0f9a8b7c6d5e4f3' }) id: string;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ type: LedgerSubjectView }) subject: LedgerSubjectView;
  @ApiProperty({ type: String, nullable: true }) run_id: string | null;
  @ApiProperty({ example: 'greet' }) tool: string;
  @ApiProperty({ description: 'Credits counted: negative for a refund.' }) credits: number;
  @ApiProperty({ enum: ['charge', 'refund'] }) kind: 'charge' | 'refund';
  @ApiProperty({ enum: ['rest', 'mcp', 'stdio'] }) transport: 'rest' | 'mcp' | 'stdio';
  @ApiProperty({ type: String, nullable: true }) request_id: string | null;
  @ApiProperty({ type: String, nullable: true }) idempotency_key: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "A long-running call's id (a refund names the call it gives back).",
  })
  invocation_id: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The source of a source's tool (docs/sources.md); null for a native tool.",
  })
  source: string | null;
}

/** A JSON page of the ledger (LedgerPage), as the OpenAPI document shows it. */
export class LedgerPageView implements LedgerPage {
  @ApiProperty({ type: [LedgerEntryView] }) entries: LedgerEntryView[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The next page's `cursor`; null on the last.",
  })
  next_cursor: string | null;
}
