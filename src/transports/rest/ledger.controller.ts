import { applyDecorators, Controller, Get, Headers, Query, StreamableFile } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { Readable } from 'node:stream';
import { Scopes } from '../../auth';
import { ApiErrors, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import { CSV_HEADER, csvLine, LedgerService, ndjsonLine } from '../../ledger';
import type { LedgerEntry, LedgerPage, LedgerQuery } from '../../ledger';

export const LEDGER_PATH = '/api/v1/ledger';

const QUERY = [
  ['from', 'RFC 3339 instant, inclusive (default: 30 days before `to`).'],
  ['to', 'RFC 3339 instant, exclusive (default: now).'],
  ['subject', '`key:<id>` or `principal:<id>`.'],
  ['external_id', "The subjects' external id."],
  ['run', 'A run id.'],
  ['tool', 'A tool name.'],
  ['cursor', 'The `next_cursor` of the previous page (JSON pages only).'],
];

/** Lines written to the answer at once: a few hundred entries a chunk, not a chunk a line. */
const LINES_A_CHUNK = 500;

/**
 * The lines of a whole range, LINES_A_CHUNK to a chunk: memory holds one page of the store at a
 * time, and the answer's stream handles a few hundred chunks for 100,000 entries, not 100,000.
 */
async function* lines(
  entries: AsyncGenerator<LedgerEntry>,
  format: 'csv' | 'ndjson',
): AsyncGenerator<string> {
  let chunk = format === 'csv' ? [CSV_HEADER] : [];
  for await (const entry of entries) {
    chunk.push(format === 'csv' ? csvLine(entry) : ndjsonLine(entry));
    if (chunk.length < LINES_A_CHUNK) continue;
    yield chunk.join('');
    chunk = [];
  }
  if (chunk.length) yield chunk.join('');
}

/** Which whole-range format the client accepts, if any (else a JSON page). */
function streamed(accept: string | undefined): 'csv' | 'ndjson' | undefined {
  if (!accept) return undefined;
  if (/\bapplication\/x-ndjson\b/i.test(accept)) return 'ndjson';
  if (/\btext\/csv\b/i.test(accept)) return 'csv';
  return undefined;
}

/** The ledger: every counted call and refund, what a bill is built from (docs/runs-and-ledger.md). */
@ApiTags('ledger')
@ApiBearerAuth()
@ApiErrors(...KEYED_ERRORS)
@Controller('api/v1/ledger')
export class LedgerController {
  constructor(private readonly ledger: LedgerService) {}

  /**
   * A page of entries, oldest first; with `Accept: application/x-ndjson` or `text/csv`, every
   * entry of the range, streamed.
   */
  @Get()
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listLedger', summary: 'Ledger entries (a page, or the range)' })
  @ApiProduces('application/json', 'application/x-ndjson', 'text/csv')
  @ApiOkResponse({ description: '{entries, next_cursor}; or NDJSON or CSV of the whole range.' })
  @ApiErrors(400, 403)
  @applyDecorators(
    ...QUERY.map(([name, description]) => ApiQuery({ name, required: false, description })),
  )
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
  })
  page(
    @Query() query: Record<string, unknown>,
    @Headers('accept') accept: string | undefined,
  ): Promise<LedgerPage> | StreamableFile {
    const format = streamed(accept);
    if (!format) return this.ledger.page(query);
    const range: LedgerQuery = this.ledger.query(query);
    return new StreamableFile(Readable.from(lines(this.ledger.stream(range), format)), {
      type: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
    });
  }
}
