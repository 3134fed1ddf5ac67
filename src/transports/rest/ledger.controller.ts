import {
  applyDecorators,
  Controller,
  Get,
  Headers,
  Query,
  Res,
  StreamableFile,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { Readable } from 'node:stream';
import { Scopes } from '../../kernel/auth/auth.decorators';
import { nextPage, pageFilters } from '../../kernel/http/page-cursor';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { PAGE_LINK } from '../../kernel/openapi/page.decorator';
import { queryInts } from '../../kernel/validation/query';
import { ApiErrors, KEYED_ERRORS } from '../../kernel/openapi/api-errors';
import {
  CSV_HEADER,
  csvLine,
  LedgerExports,
  LedgerPageView,
  LedgerService,
  ndjsonLine,
} from '../../ledger';
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

/** What a JSON page's `Link` carries on: the query's filters (the cursor and limit aside). */
const FILTERS = QUERY.map(([name]) => name).filter((name) => name !== 'cursor');
/** A JSON page's size, as LedgerService.page reads it. */
const LIMIT = { min: 1, max: 1000, default: 100 };

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
  constructor(
    private readonly ledger: LedgerService,
    private readonly exports: LedgerExports,
  ) {}

  /**
   * A page of entries, oldest first; with `Accept: application/x-ndjson` or `text/csv`, every
   * entry of the range, streamed a slice of the store at a time (other requests are served between
   * slices), at most LEDGER_MAX_EXPORTS such streams at once (then a 429 with `Retry-After`).
   */
  @Get()
  @Scopes(['admin:read'])
  @ApiOperation({ operationId: 'listLedger', summary: 'Ledger entries (a page, or the range)' })
  @ApiProduces('application/json', 'application/x-ndjson', 'text/csv')
  @ApiExtraModels(LedgerPageView)
  @ApiOkResponse({
    description: '{entries, next_cursor}; or NDJSON or CSV of the whole range.',
    headers: PAGE_LINK,
    content: {
      'application/json': { schema: { $ref: getSchemaPath(LedgerPageView) } },
      'application/x-ndjson': { schema: { type: 'string', description: 'An entry a line.' } },
      'text/csv': { schema: { type: 'string', description: 'RFC 4180, a header line first.' } },
    },
  })
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
    @Res({ passthrough: true }) res: ReplyControl,
  ): Promise<LedgerPage> | StreamableFile {
    const format = streamed(accept);
    if (!format) return this.jsonPage(query, res);
    const range: LedgerQuery = this.ledger.query(query);
    const stream = this.exports.admit(() =>
      Readable.from(lines(this.ledger.stream(range), format)),
    );
    return new StreamableFile(stream, {
      type: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
    });
  }

  /** A JSON page, with the `Link` to the next one (and the filters it was asked with). */
  private async jsonPage(query: Record<string, unknown>, res: ReplyControl): Promise<LedgerPage> {
    const found = await this.ledger.page(query);
    const { limit } = queryInts(query, { limit: LIMIT });
    const link = {
      path: LEDGER_PATH,
      limit: limit as number,
      filters: pageFilters(query, FILTERS),
    };
    nextPage(res, found.next_cursor, link);
    return found;
  }
}
