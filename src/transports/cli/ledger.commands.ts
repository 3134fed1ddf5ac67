import { Command, Option } from 'commander';
import { ApiError, ValidationFailed } from '../../kernel/errors/api-error';
import {
  CSV_HEADER,
  csvLine,
  LedgerService,
  ledgerQuery,
  ndjsonLine,
  stripeMeterEvent,
  type LedgerQuery,
} from '../../ledger';
import type { WithContext } from './keys.commands';

interface ExportOptions {
  from?: string;
  to?: string;
  subject?: string;
  externalId?: string;
  run?: string;
  tool?: string;
  format: 'ndjson' | 'csv' | 'stripe-meter-events';
  eventName: string;
}

/** Writes a chunk to stdout, waiting when the pipe is full: memory holds a page at most. */
function write(chunk: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.stdout.write(chunk, (error) => error && reject(error))) resolve();
    else process.stdout.once('drain', resolve);
  });
}

/** A refused query's first issue as one line (`from: Value error, …`). */
function plainly(error: unknown): unknown {
  if (!(error instanceof ValidationFailed)) return error;
  const [issue] = error.issues;
  return new ApiError(400, `${String(issue.loc[issue.loc.length - 1])}: ${issue.msg}`);
}

/** `ledger export`: a range of the ledger as NDJSON, CSV or Stripe Billing Meter events. */
export function addLedgerCommands(program: Command, withContext: WithContext): void {
  const ledger = program
    .command('ledger')
    .description('The ledger: every counted call and refund (docs/runs-and-ledger.md)');

  ledger
    .command('export')
    .description('Print a range of the ledger, oldest first')
    .option('--from <instant>', 'RFC 3339, inclusive (default: 30 days before --to)')
    .option('--to <instant>', 'RFC 3339, exclusive (default: now)')
    .option('--subject <subject>', 'key:<id> or principal:<id>')
    .option('--external-id <id>', "the subjects' external id")
    .option('--run <id>', 'a run id')
    .option('--tool <name>', 'a tool')
    .addOption(
      new Option('--format <format>', 'what to print')
        .choices(['ndjson', 'csv', 'stripe-meter-events'])
        .default('ndjson'),
    )
    .option('--event-name <name>', "the Stripe meter's event_name", 'tool_credits')
    .action(async (opts: ExportOptions) => {
      // Checked before the store is opened: a mistyped instant creates nothing.
      let query: LedgerQuery;
      try {
        query = ledgerQuery(
          {
            from: opts.from,
            to: opts.to,
            subject: opts.subject,
            external_id: opts.externalId,
            run: opts.run,
            tool: opts.tool,
          },
          Date.now(),
        );
      } catch (error) {
        throw plainly(error);
      }
      const skipped = await withContext(async (app) => {
        const service = app.get(LedgerService);
        const left = { refunds: 0, withoutExternalId: 0 };
        if (opts.format === 'csv') await write(CSV_HEADER);
        for await (const entry of service.stream(query)) {
          if (opts.format === 'ndjson') await write(ndjsonLine(entry));
          else if (opts.format === 'csv') await write(csvLine(entry));
          else {
            const event = stripeMeterEvent(entry, opts.eventName);
            if (event) await write(`${JSON.stringify(event)}\n`);
            else if (entry.kind === 'refund') left.refunds += 1;
            else left.withoutExternalId += 1;
          }
        }
        return left;
      });
      if (opts.format === 'stripe-meter-events') {
        process.stderr.write(
          `skipped: ${skipped.refunds} refunds (a meter takes no negative value), ` +
            `${skipped.withoutExternalId} charges of subjects without an external_id\n`,
        );
      }
    });
}
