import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, InvalidArgumentError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_ACTOR } from './audit/audit.context';
import { AuditService } from './audit/audit.service';
import { ApiKeysService, KeyRequestError, KeyUpdate, toView } from './auth/api-keys.service';
import type { ApiKeyView } from './auth/api-keys.dto';
import {
  DEFAULT_SCOPE_TEMPLATE,
  KNOWN_SCOPES,
  SCOPE_MEANINGS,
  SCOPE_TEMPLATES,
  WILDCARD_SCOPES,
} from './auth/scopes';
import { plural, printable } from './common/text';
import { HISTORY_MAX_DAYS, QuotaService } from './limits/quota.service';
import { prepareEnvironment } from './settings/environment';
import { DoctorService } from './tools/doctor/doctor.service';

function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `expected a whole number >= ${min}`
          : `expected a whole number from ${min} to ${max}`,
      );
    return Number(raw);
  };
}

/** A limit, or `none`: the plan's (kept as 'none': commander turns a parsed null into ''). */
function limitOrNone(min: number) {
  const number = wholeNumber(min);
  return (raw: string): number | 'none' => (raw === 'none' ? 'none' : number(raw));
}

function noneAsNull(value: number | 'none' | undefined): number | null | undefined {
  return value === 'none' ? null : value;
}

function scopeList(raw: string | undefined): string[] | undefined {
  return raw
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** One key, a line a setting. */
function describeKey(v: ApiKeyView): Line[] {
  return [
    line`${v.id} (${v.name}): ${v.status}`,
    line`  prefix      ${v.prefix}...`,
    line`  scopes      ${v.scopes.join(',')}`,
    line`  plan        ${v.plan}`,
    line`  daily_limit ${v.daily_limit ?? "plan's"}`,
    line`  rate_limit  ${v.rate_limit ?? "plan's"}`,
    line`  created_at  ${v.created_at}`,
    line`  expires_at  ${v.expires_at ?? 'never'}`,
    line`  last_used   ${v.last_used_at ?? 'never'}`,
    ...(v.previous_key_expires_at
      ? [line`  previous key valid until ${v.previous_key_expires_at}`]
      : []),
  ];
}

/** Not a usage mistake: the key is not there (exit 1). */
function notFound(id: string): Error {
  return new Error(`API key not found: ${id}`);
}

async function withContext<T>(work: (app: INestApplicationContext) => Promise<T>): Promise<T> {
  // Loaded on use: `--help` and bad usage need none of the modules.
  const { rootModule } = await import('./app.module');
  const app = await NestFactory.createApplicationContext(rootModule('cli'), {
    logger: false,
    abortOnError: false,
  });
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

/** A line of output made by `line`: the only kind `out` writes. */
type Line = string & { readonly __printable: never };

/**
 * A line of output from a template whose values are shown printable: a name, a plan or an audit
 * detail holds whatever was stored (a name from before labels were checked, a record written by
 * hand), and must reach the operator's terminal as text, never as an escape sequence or a forged
 * row. The template's own text (its tabs) stays as written.
 */
function line(template: TemplateStringsArray, ...values: unknown[]): Line {
  let text = template[0];
  values.forEach((value, i) => (text += printable(String(value)) + template[i + 1]));
  return text as Line;
}

const out = (text: Line): void => {
  process.stdout.write(`${text}\n`);
};

/**
 * The scopes a key can hold and the templates, read from src/auth/scopes.ts, for the `--help` of
 * the commands that grant them: a newcomer's first guess at a scope is a tool's name.
 */
function scopesHelp(command: 'create' | 'update'): string {
  const row = (name: string, meaning: string) => `  ${name.padEnd(18)}${meaning}`;
  const wildcard = (scope: string) =>
    scope === '*' ? 'every scope' : `every ${scope.slice(0, -1)}... scope`;
  const isDefault = (name: string) => command === 'create' && name === DEFAULT_SCOPE_TEMPLATE;
  return [
    '',
    'Scopes (--scopes, comma-separated):',
    ...KNOWN_SCOPES.map((scope) => row(scope, SCOPE_MEANINGS[scope])),
    ...WILDCARD_SCOPES.map((scope) => row(scope, wildcard(scope))),
    command === 'create'
      ? 'Templates (--template):'
      : 'Templates (of keys create --template; here, give their scopes):',
    ...Object.entries(SCOPE_TEMPLATES).map(([name, scopes]) =>
      row(name, `${scopes.join(',')}${isDefault(name) ? ' (the default)' : ''}`),
    ),
  ].join('\n');
}

/** The variables the CLI reads (from the environment or `.env` in the working directory). */
const ENVIRONMENT_HELP = `
Environment (also read from .env in the working directory; the environment wins):
  DATA_DIR              where the embedded store lives (default ./data)
  REDIS_URL             the store is Redis instead (the server's REDIS_URL and REDIS_KEY_PREFIX)
  REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_CLUSTER_NODES, REDIS_PASSWORD,
  REDIS_SENTINEL_PASSWORD   or a master through Sentinels, or a Redis Cluster, as the server's
  REDIS_KEY_PREFIX      namespace of the Redis keys (default tis:)
  CONFIG_FILE           the server's YAML configuration (plans under limits:)
  PLAN_<NAME>_DAILY_LIMIT, PLAN_<NAME>_RATE_LIMIT, DEFAULT_PLAN   plans, as the server has them
  MCP_API_KEY           the key of 'mcp' when --key is not given
Exit codes: 0 done, 1 failed (store unreachable, doctor found failures), 2 bad usage.`;

export function buildCli(): Command {
  const program = new Command('cli')
    .description('Operator commands for the tool invocation service')
    .version(packageVersion(), '-V, --version', 'print the version')
    .addHelpText('after', ENVIRONMENT_HELP);
  program.exitOverride();
  const keys = program.command('keys').description('Create, list and revoke API keys');

  keys
    .command('create')
    .description('Create an API key; its text is printed once')
    .requiredOption('--name <name>', 'a name to recognise the key by (required)')
    .addOption(new Option('--scopes <list>', 'comma-separated scopes').conflicts('template'))
    .option('--template <name>', `scope template: ${Object.keys(SCOPE_TEMPLATES).join(', ')}`)
    .option('--plan <plan>', 'plan: free, pro or unlimited')
    .option('--daily-limit <n>', "calls per UTC day, beating the plan's", wholeNumber(0))
    .option('--rate-limit <n>', "calls per second, beating the plan's", wholeNumber(1))
    .option('--expires-in-days <n>', 'days until the key expires', wholeNumber(1))
    .option('--json', 'print one JSON object')
    .addHelpText('after', scopesHelp('create'))
    .action(
      async (opts: {
        name: string;
        scopes?: string;
        template?: string;
        plan?: string;
        dailyLimit?: number;
        rateLimit?: number;
        expiresInDays?: number;
        json?: boolean;
      }) => {
        const scopes = opts.scopes
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const { key, record } = await withContext((app) =>
          app.get(ApiKeysService).create(
            {
              name: opts.name,
              scopes,
              scope_template: opts.template,
              plan: opts.plan,
              daily_limit: opts.dailyLimit,
              rate_limit: opts.rateLimit,
              expires_in_days: opts.expiresInDays,
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

  keys
    .command('list')
    .description('List keys (never their text)')
    .option('--json', 'print a JSON array')
    .action(async (opts: { json?: boolean }) => {
      const views = await withContext(async (app) =>
        (await app.get(ApiKeysService).list()).map((r) => toView(r)),
      );
      if (opts.json) return out(line`${JSON.stringify(views)}`);
      if (!views.length) return out(line`No keys.`);
      for (const v of views) {
        out(
          line`${v.id}\t${v.prefix}...\t${v.status}\t${v.plan}\t${v.scopes.join(',')}\t${v.name}`,
        );
      }
    });

  keys
    .command('revoke <id>')
    .description('Revoke a key: from now on it gets 401')
    .action(async (id: string) => {
      const revoked = await withContext((app) => app.get(ApiKeysService).revoke(id, CLI_ACTOR));
      if (!revoked) throw notFound(id);
      out(line`Revoked ${id}.`);
    });

  keys
    .command('show <id>')
    .description("Show one key's settings and status (never its text)")
    .option('--json', 'print one JSON object')
    .action(async (id: string, opts: { json?: boolean }) => {
      const view = await withContext(async (app) => {
        const keys = app.get(ApiKeysService);
        const record = await keys.find(id);
        return record && toView(record, keys.now());
      });
      if (!view) throw notFound(id);
      if (opts.json) return out(line`${JSON.stringify(view)}`);
      describeKey(view).forEach(out);
    });

  keys
    .command('update <id>')
    .description('Change a key: name, scopes, plan, limits, enabled (from its next request on)')
    .option('--name <name>', 'a new name')
    .option('--scopes <list>', 'comma-separated scopes, replacing the current ones')
    .option('--plan <plan>', 'plan: free, pro or unlimited')
    .option('--daily-limit <n|none>', "calls per UTC day; none: the plan's", limitOrNone(0))
    .option('--rate-limit <n|none>', "calls per second; none: the plan's", limitOrNone(1))
    .addOption(new Option('--enable', 'let the key in again').conflicts('disable'))
    .option('--disable', 'refuse the key (401) until enabled')
    .option('--json', 'print one JSON object')
    .addHelpText('after', scopesHelp('update'))
    .action(
      async (
        id: string,
        opts: {
          name?: string;
          scopes?: string;
          plan?: string;
          dailyLimit?: number | 'none';
          rateLimit?: number | 'none';
          enable?: boolean;
          disable?: boolean;
          json?: boolean;
        },
      ) => {
        const changes: KeyUpdate = {
          name: opts.name,
          scopes: scopeList(opts.scopes),
          plan: opts.plan,
          daily_limit: noneAsNull(opts.dailyLimit),
          rate_limit: noneAsNull(opts.rateLimit),
          enabled: opts.enable ? true : opts.disable ? false : undefined,
        };
        const view = await withContext(async (app) => {
          const keys = app.get(ApiKeysService);
          const target = await keys.find(id);
          if (!target) throw notFound(id);
          if (target.revoked_at) throw new KeyRequestError(`API key is revoked: ${id}`);
          const record = await keys.update(target, changes, CLI_ACTOR);
          return record && toView(record, keys.now());
        });
        if (!view) throw notFound(id);
        if (opts.json) return out(line`${JSON.stringify(view)}`);
        out(line`Updated ${id}.`);
        describeKey(view).forEach(out);
      },
    );

  keys
    .command('rotate <id>')
    .description('Give a key a new secret (printed once); same id, settings and usage')
    .option(
      '--grace-seconds <n>',
      'seconds the old secret keeps working (0 to 604800)',
      wholeNumber(0, 604_800),
      0,
    )
    .option('--json', 'print one JSON object')
    .action(async (id: string, opts: { graceSeconds: number; json?: boolean }) => {
      const rotated = await withContext(async (app) => {
        const keys = app.get(ApiKeysService);
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
        const target = await app.get(ApiKeysService).find(id);
        if (!target) throw notFound(id);
        const quota = app.get(QuotaService);
        const [state, history] = await Promise.all([
          quota.usage(target),
          quota.history(target, opts.days),
        ]);
        return {
          plan: target.plan,
          daily_limit: state.limit,
          used: state.used,
          remaining: state.remaining,
          resets_at: state.resetsAt.toISOString(),
          history,
        };
      });
      if (opts.json) return out(line`${JSON.stringify(usage)}`);
      out(
        line`${id}: ${plural(usage.used, 'call')} today, limit ${usage.daily_limit ?? 'none'}, plan ${usage.plan}.`,
      );
      for (const day of usage.history) out(line`${day.date}\t${day.used}`);
    });

  program
    .command('audit')
    .description('The audit trail, newest first: who changed which key or setting')
    .option('--limit <n>', 'entries to show (1 to 500)', wholeNumber(1, 500), 100)
    .option('--json', 'print one JSON object {entries}')
    .action(async (opts: { limit: number; json?: boolean }) => {
      const entries = await withContext((app) => app.get(AuditService).list(opts.limit));
      if (opts.json) return out(line`${JSON.stringify({ entries })}`);
      if (!entries.length) return out(line`No audit entries.`);
      for (const e of entries) {
        const details = JSON.stringify(e.details);
        out(line`${e.id}\t${e.at}\t${e.actor_key_id ?? '-'}\t${e.action}\t${e.target}\t${details}`);
      }
    });

  program
    .command('doctor')
    .description('Run the health checks; exit 1 when any fails (for deploy pipelines)')
    .option('--fix', 'fix what is fixable, then check again')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { fix?: boolean; json?: boolean }) => {
      const report = await withContext((app) =>
        app.get(DoctorService).run(Boolean(opts.fix), CLI_ACTOR),
      );
      if (opts.json) out(line`${JSON.stringify(report)}`);
      else {
        for (const c of report.checks) {
          const fixable = c.fixable ? ' (fixable: --fix)' : '';
          out(
            line`${c.status.toUpperCase().padEnd(4)}  ${c.name.padEnd(18)} ${c.message}${fixable}`,
          );
        }
      }
      if (report.has_failures) process.exitCode = 1;
    });

  program
    .command('mcp')
    .description(
      'Serve the tools over MCP on stdin/stdout for a local agent, as one key (same quota and rate limit)',
    )
    .addOption(
      new Option('--key <key>', 'the API key to act as (needs services:execute)').env(
        'MCP_API_KEY',
      ),
    )
    .action(async (opts: { key?: string }) => {
      if (!opts.key) throw new KeyRequestError('An API key is required: --key or MCP_API_KEY');
      const { Logger } = await import('nestjs-pino');
      const { rootModule } = await import('./app.module');
      const { serveMcpOverStdio } = await import('./mcp/mcp.stdio');
      const app = await NestFactory.createApplicationContext(rootModule('stdio'), {
        logger: false,
        abortOnError: false,
      });
      app.useLogger(app.get(Logger));
      try {
        await serveMcpOverStdio(app, opts.key);
      } finally {
        await app.close();
      }
    });

  return program;
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    await buildCli().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    // Commander has already printed its own message: help is success, anything else bad usage.
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : 2;
    }
    process.stderr.write(`error: ${printable(e.message ?? String(error))}\n`);
    // A request the service refuses (an unknown template, scope or plan) is bad usage too.
    return error instanceof KeyRequestError ? 2 : 1;
  }
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

if (require.main === module) {
  let code: Promise<number>;
  try {
    prepareEnvironment();
    code = runCli(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    code = Promise.resolve(1);
  }
  void code.then((exit) => {
    process.exitCode = process.exitCode || exit;
  });
}
