import { Command, Option } from 'commander';
import { CLI_ACTOR } from '../../audit';
import { EVENT_TYPE_NAMES, WebhookEndpointView, WebhooksService } from '../../webhooks';
import { wholeNumber } from './cli.options';
import { line, Line, out } from './cli.output';
import type { WithContext } from './keys.commands';

const list = (raw: string | undefined) =>
  raw
    ?.split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/** Work on the webhooks service, in an application context of the CLI's modules. */
type WebhookWork = <T>(work: (webhooks: WebhooksService) => Promise<T>) => Promise<T>;

/** One endpoint, a line a setting (never its secret). */
function describeWebhook(v: WebhookEndpointView): Line[] {
  const state = v.enabled ? 'enabled' : `disabled (${v.disabled_reason})`;
  return [
    line`${v.id}: ${state}`,
    line`  url         ${v.url}`,
    line`  events      ${v.events.join(',')}`,
    line`  description ${v.description ?? '-'}`,
    line`  failing     ${v.failing_since ? `since ${v.failing_since}` : 'no'}`,
    ...(v.previous_secret_expires_at
      ? [line`  previous secret signs until ${v.previous_secret_expires_at}`]
      : []),
  ];
}

/** `webhooks list|create|update|rotate-secret|delete|deliveries|test`, as the routes do. */
export function addWebhookCommands(program: Command, withContext: WithContext): void {
  const webhooks = program
    .command('webhooks')
    .description('Endpoints that receive signed events (docs/webhooks.md)');
  const service: WebhookWork = (work) => withContext((app) => work(app.get(WebhooksService)));

  addEndpointCommands(webhooks, service);
  addEndpointUpkeepCommands(webhooks, service);
}

/** `webhooks list|create|update`: the endpoints themselves. */
function addEndpointCommands(webhooks: Command, service: WebhookWork): void {
  webhooks
    .command('list')
    .description('Every endpoint (never its secret)')
    .option('--json', 'print a JSON array')
    .action(async (opts: { json?: boolean }) => {
      const views = await service((w) => w.list());
      if (opts.json) return out(line`${JSON.stringify(views)}`);
      if (!views.length) return out(line`No webhook endpoints.`);
      out(line`id\tenabled\tevents\turl`);
      for (const v of views) out(line`${v.id}\t${v.enabled}\t${v.events.join(',')}\t${v.url}`);
    });

  webhooks
    .command('create')
    .description('Add an endpoint; its signing secret is printed once')
    .requiredOption('--url <url>', 'where events are POSTed (https://)')
    .requiredOption('--events <list>', `comma-separated: ${EVENT_TYPE_NAMES.join(', ')}, or *`)
    .option('--description <text>', 'what the endpoint is for')
    .option('--json', 'print one JSON object')
    .action(async (opts: { url: string; events: string; description?: string; json?: boolean }) => {
      const created = await service((w) =>
        w.create(
          { url: opts.url, events: list(opts.events) ?? [], description: opts.description },
          CLI_ACTOR,
        ),
      );
      if (opts.json) return out(line`${JSON.stringify(created)}`);
      describeWebhook(created).forEach(out);
      out(line`Secret (shown once, store it now): ${created.secret}`);
    });

  webhooks
    .command('update <id>')
    .description('Change an endpoint: url, events, description, enabled')
    .option('--url <url>', 'a new target')
    .option('--events <list>', 'comma-separated event types, or *')
    .option('--description <text>', 'what the endpoint is for')
    .addOption(new Option('--enable', 'send to it again').conflicts('disable'))
    .option('--disable', 'send nothing to it until enabled')
    .option('--json', 'print one JSON object')
    .action(
      async (
        id: string,
        opts: {
          url?: string;
          events?: string;
          description?: string;
          enable?: boolean;
          disable?: boolean;
          json?: boolean;
        },
      ) => {
        const enabled = opts.enable ? true : opts.disable ? false : undefined;
        const view = await service((w) =>
          w.update(
            id,
            { url: opts.url, events: list(opts.events), description: opts.description, enabled },
            CLI_ACTOR,
          ),
        );
        if (opts.json) return out(line`${JSON.stringify(view)}`);
        describeWebhook(view).forEach(out);
      },
    );
}

/** `webhooks rotate-secret|delete|deliveries|test`: an endpoint's secret, removal and deliveries. */
function addEndpointUpkeepCommands(webhooks: Command, service: WebhookWork): void {
  webhooks
    .command('rotate-secret <id>')
    .description('A new signing secret (printed once); the old one signs beside it for a grace')
    .option(
      '--grace-seconds <n>',
      'seconds the old secret keeps signing (0 to 86400)',
      wholeNumber(0, 86_400),
      86_400,
    )
    .option('--json', 'print one JSON object')
    .action(async (id: string, opts: { graceSeconds: number; json?: boolean }) => {
      const rotated = await service((w) => w.rotateSecret(id, opts.graceSeconds, CLI_ACTOR));
      if (opts.json) return out(line`${JSON.stringify(rotated)}`);
      const until = rotated.previous_secret_expires_at;
      out(
        line`Rotated ${id}; the old secret ${until ? `signs until ${until}` : 'no longer signs'}.`,
      );
      out(line`Secret (shown once, store it now): ${rotated.secret}`);
    });

  webhooks
    .command('delete <id>')
    .description('Remove an endpoint and its deliveries')
    .action(async (id: string) => {
      await service((w) => w.remove(id, CLI_ACTOR));
      out(line`Deleted ${id}.`);
    });

  webhooks
    .command('deliveries <id>')
    .description("An endpoint's deliveries, newest first (30 days)")
    .option('--limit <n>', 'deliveries to show (1 to 100)', wholeNumber(1, 100), 50)
    .option('--json', 'print one JSON object {deliveries, next_cursor} (next_before: the same)')
    .action(async (id: string, opts: { limit: number; json?: boolean }) => {
      const page = await service((w) => w.deliveries(id, undefined, opts.limit));
      if (opts.json) return out(line`${JSON.stringify(page)}`);
      if (!page.deliveries.length) return out(line`No deliveries.`);
      out(line`id\tat\ttype\tstatus\tattempts\tanswer`);
      for (const d of page.deliveries) {
        const answer = d.response_status ?? d.error ?? '-';
        out(line`${d.id}\t${d.at}\t${d.type}\t${d.status}\t${d.attempt}\t${answer}`);
      }
    });

  webhooks
    .command('test <id>')
    .description('Send a webhook.test event to the endpoint (a running server delivers it)')
    .action(async (id: string) => {
      const delivery = await service((w) => w.test(id));
      out(line`Queued ${delivery.id} (event ${delivery.event_id}).`);
    });
}
