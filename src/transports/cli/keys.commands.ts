import type { INestApplicationContext } from '@nestjs/common';
import { Command, Option } from 'commander';
import { CLI_ACTOR } from '../../audit';
import { toView, MAX_GRACE_SECONDS, KeysService, KeyRequestError, KeyUpdate } from '../../subjects';
import { SCOPE_TEMPLATES } from '../../kernel/auth/scopes';
import { plural } from '../../kernel/common/text';
import { HISTORY_MAX_DAYS, QuotaService, usageView } from '../../limits';
import { limitOrNone, noneAsNull, scopeList, scopesHelp, wholeNumber } from './cli.options';
import { describeKey, line, Line, notFound, out } from './cli.output';

/** Runs work on an application context of the CLI's modules (cli.ts makes it). */
export type WithContext = <T>(work: (app: INestApplicationContext) => Promise<T>) => Promise<T>;

/** `keys create|list|revoke|show|update|rotate|usage`: the keys of the store the server uses. */
export function addKeyCommands(
  program: Command,
  withContext: WithContext,
  tools: readonly string[],
): void {
  const keys = program.command('keys').description('Create, list and revoke API keys');

  addCreateKey(keys, withContext, tools);
  addListKeys(keys, withContext);
  addRevokeKey(keys, withContext);
  addShowKey(keys, withContext);
  addUpdateKey(keys, withContext, tools);
  addRotateKey(keys, withContext);
  addKeyUsage(keys, withContext);
}

/** `keys create`: a new key, its text printed once. */
function addCreateKey(keys: Command, withContext: WithContext, tools: readonly string[]): void {
  keys
    .command('create')
    .description('Create an API key; its text is printed once')
    .requiredOption('--name <name>', 'a name to recognise the key by (required)')
    .addOption(new Option('--scopes <list>', 'comma-separated scopes').conflicts('template'))
    .option('--template <name>', `scope template: ${Object.keys(SCOPE_TEMPLATES).join(', ')}`)
    .option('--plan <plan>', 'plan: free, pro or unlimited')
    .option('--daily-limit <n>', "credits per UTC day, beating the plan's", wholeNumber(0))
    .option('--monthly-limit <n>', "credits per UTC month, beating the plan's", wholeNumber(0))
    .option('--rate-limit <n>', "calls per second, beating the plan's", wholeNumber(1))
    .option('--expires-in-days <n>', 'days until the key expires', wholeNumber(1))
    .option('--external-id <id>', 'the customer or account the key belongs to')
    .option('--json', 'print one JSON object')
    .addHelpText('after', scopesHelp('create', tools))
    .action(
      async (opts: {
        name: string;
        scopes?: string;
        template?: string;
        plan?: string;
        dailyLimit?: number;
        monthlyLimit?: number;
        rateLimit?: number;
        expiresInDays?: number;
        externalId?: string;
        json?: boolean;
      }) => {
        const scopes = opts.scopes
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const { key, record } = await withContext((app) =>
          app.get(KeysService).create(
            {
              name: opts.name,
              scopes,
              scope_template: opts.template,
              plan: opts.plan,
              daily_limit: opts.dailyLimit,
              monthly_limit: opts.monthlyLimit,
              rate_limit: opts.rateLimit,
              expires_in_days: opts.expiresInDays,
              external_id: opts.externalId,
            },
            CLI_ACTOR,
          ),
        );
        if (opts.json) return out(line`${JSON.stringify({ ...toView(record), key })}`);
        out(
          line`Created ${record.id} (${record.name}), scopes ${record.scopes.join(',')}, plan ${record.plan}.`,
        );
        out(line`Key (shown once, store it now): ${key}`);
      },
    );
}

/** `keys list`: every key, never its text. */
function addListKeys(keys: Command, withContext: WithContext): void {
  keys
    .command('list')
    .description('List keys (never their text)')
    .option('--json', 'print a JSON array')
    .action(async (opts: { json?: boolean }) => {
      const views = await withContext(async (app) =>
        (await app.get(KeysService).list()).map((r) => toView(r)),
      );
      if (opts.json) return out(line`${JSON.stringify(views)}`);
      if (!views.length) return out(line`No keys.`);
      out(line`id\tprefix\tstatus\tplan\tscopes\tname`);
      for (const v of views) {
        out(
          line`${v.id}\t${v.prefix}...\t${v.status}\t${v.plan}\t${v.scopes.join(',')}\t${v.name}`,
        );
      }
    });
}

/** `keys revoke <id>`. */
function addRevokeKey(keys: Command, withContext: WithContext): void {
  keys
    .command('revoke <id>')
    .description('Revoke a key: from now on it gets 401')
    .action(async (id: string) => {
      const revoked = await withContext((app) => app.get(KeysService).revoke(id, CLI_ACTOR));
      if (!revoked) throw notFound(id);
      out(line`Revoked ${id}.`);
    });
}

/** `keys show <id>`: one key's settings and status. */
function addShowKey(keys: Command, withContext: WithContext): void {
  keys
    .command('show <id>')
    .description("Show one key's settings and status (never its text)")
    .option('--json', 'print one JSON object')
    .action(async (id: string, opts: { json?: boolean }) => {
      const view = await withContext(async (app) => {
        const keys = app.get(KeysService);
        const record = await keys.find(id);
        return record && toView(record, keys.now());
      });
      if (!view) throw notFound(id);
      if (opts.json) return out(line`${JSON.stringify(view)}`);
      describeKey(view).forEach(out);
    });
}

/** `keys update <id>`: name, scopes, plan, limits, enabled. */
function addUpdateKey(keys: Command, withContext: WithContext, tools: readonly string[]): void {
  keys
    .command('update <id>')
    .description('Change a key: name, scopes, plan, limits, enabled (from its next request on)')
    .option('--name <name>', 'a new name')
    .option('--scopes <list>', 'comma-separated scopes, replacing the current ones')
    .option('--plan <plan>', 'plan: free, pro or unlimited')
    .option('--daily-limit <n|none>', "credits per UTC day; none: the plan's", limitOrNone(0))
    .option('--monthly-limit <n|none>', "credits per UTC month; none: the plan's", limitOrNone(0))
    .option('--rate-limit <n|none>', "calls per second; none: the plan's", limitOrNone(1))
    .addOption(new Option('--enable', 'let the key in again').conflicts('disable'))
    .option('--disable', 'refuse the key (401) until enabled')
    .option('--external-id <id>', 'the customer or account the key belongs to')
    .option('--no-external-id', 'the key belongs to no customer or account')
    .option('--json', 'print one JSON object')
    .addHelpText('after', scopesHelp('update', tools))
    .action(
      async (
        id: string,
        opts: {
          name?: string;
          scopes?: string;
          plan?: string;
          dailyLimit?: number | 'none';
          monthlyLimit?: number | 'none';
          rateLimit?: number | 'none';
          enable?: boolean;
          disable?: boolean;
          /** false: `--no-external-id`. */
          externalId?: string | false;
          json?: boolean;
        },
      ) => {
        const changes: KeyUpdate = {
          name: opts.name,
          scopes: scopeList(opts.scopes),
          plan: opts.plan,
          daily_limit: noneAsNull(opts.dailyLimit),
          monthly_limit: noneAsNull(opts.monthlyLimit),
          rate_limit: noneAsNull(opts.rateLimit),
          enabled: opts.enable ? true : opts.disable ? false : undefined,
          external_id: opts.externalId === false ? null : opts.externalId,
        };
        const view = await withContext(async (app) => {
          const keys = app.get(KeysService);
          const target = await keys.find(id);
          if (!target) throw notFound(id);
          if (target.revoked_at) throw new KeyRequestError(`API key is revoked: ${id}`);
          const record = await keys.update(target, keys.checkedUpdate(changes), CLI_ACTOR);
          return record && toView(record, keys.now());
        });
        if (!view) throw notFound(id);
        if (opts.json) return out(line`${JSON.stringify(view)}`);
        out(line`Updated ${id}.`);
        describeKey(view).forEach(out);
      },
    );
}

/** `keys rotate <id>`: a new secret, printed once. */
function addRotateKey(keys: Command, withContext: WithContext): void {
  keys
    .command('rotate <id>')
    .description('Give a key a new secret (printed once); same id, settings and usage')
    .option(
      '--grace-seconds <n>',
      `seconds the old secret keeps working (0 to ${MAX_GRACE_SECONDS})`,
      wholeNumber(0, MAX_GRACE_SECONDS),
      0,
    )
    .option('--json', 'print one JSON object')
    .action(async (id: string, opts: { graceSeconds: number; json?: boolean }) => {
      const rotated = await withContext(async (app) => {
        const keys = app.get(KeysService);
        const target = await keys.find(id);
        if (!target) throw notFound(id);
        if (target.revoked_at) throw new KeyRequestError(`API key is revoked: ${id}`);
        const done = await keys.rotate(id, opts.graceSeconds, CLI_ACTOR);
        return done && { view: toView(done.record, keys.now()), key: done.key };
      });
      if (!rotated) throw notFound(id);
      if (opts.json) return out(line`${JSON.stringify({ ...rotated.view, key: rotated.key })}`);
      const until = rotated.view.previous_key_expires_at;
      out(line`Rotated ${id}; the old key ${until ? `works until ${until}` : 'no longer works'}.`);
      out(line`Key (shown once, store it now): ${rotated.key}`);
    });
}

/** `keys usage <id>`: a key's usage today and per UTC day. */
function addKeyUsage(keys: Command, withContext: WithContext): void {
  keys
    .command('usage <id>')
    .description("A key's usage today and per UTC day")
    .option(
      '--days <n>',
      `days of history (1 to ${HISTORY_MAX_DAYS})`,
      wholeNumber(1, HISTORY_MAX_DAYS),
      1,
    )
    .option('--json', 'print one JSON object')
    .action(async (id: string, opts: { days: number; json?: boolean }) => {
      const usage = await withContext(async (app) => {
        const target = await app.get(KeysService).find(id);
        if (!target) throw notFound(id);
        return usageView(app.get(QuotaService), target, opts.days);
      });
      if (opts.json) return out(line`${JSON.stringify(usage)}`);
      out(
        line`${id}: ${plural(usage.used, 'credit')} today, limit ${usage.daily_limit ?? 'none'}, plan ${usage.plan}.`,
      );
      const month = usage.monthly;
      if (month) {
        out(line`this month: ${month.used} of ${month.limit} credits, until ${month.resets_at}.`);
      }
      // A day: its credits, then each tool's calls, credits and failures, tab-separated.
      for (const day of usage.history) {
        const tools = Object.keys(day.by_tool)
          .sort()
          .map((tool) => {
            const { calls, credits, failed } = day.by_tool[tool];
            return line`\t${tool}: ${plural(calls, 'call')}, ${plural(credits, 'credit')}, ${failed} failed`;
          });
        out([line`${day.date}\t${day.used}`, ...tools].join('') as Line);
      }
    });
}
