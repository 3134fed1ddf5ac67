import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ApiKeysService, KeyRequestError, toView } from './auth/api-keys.service';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareEnvironment } from './settings/environment';
import { DoctorService } from './tools/doctor/doctor.service';

function wholeNumber(min: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < min)
      throw new InvalidArgumentError(`expected a whole number >= ${min}`);
    return Number(raw);
  };
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

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** The variables the CLI reads (from the environment or `.env` in the working directory). */
const ENVIRONMENT_HELP = `
Environment (also read from .env in the working directory; the environment wins):
  DATA_DIR              where the embedded store lives (default ./data)
  REDIS_URL             the store is Redis instead (the server's REDIS_URL and REDIS_KEY_PREFIX)
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
    .option('--template <name>', 'scope template: read_only, standard or admin')
    .option('--plan <plan>', 'plan: free, pro or unlimited')
    .option('--daily-limit <n>', "calls per UTC day, beating the plan's", wholeNumber(0))
    .option('--rate-limit <n>', "calls per second, beating the plan's", wholeNumber(1))
    .option('--expires-in-days <n>', 'days until the key expires', wholeNumber(1))
    .option('--json', 'print one JSON object')
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
          app.get(ApiKeysService).create({
            name: opts.name,
            scopes,
            scope_template: opts.template,
            plan: opts.plan,
            daily_limit: opts.dailyLimit,
            rate_limit: opts.rateLimit,
            expires_in_days: opts.expiresInDays,
          }),
        );
        if (opts.json) return out(JSON.stringify({ ...toView(record), key }));
        out(
          `Created ${record.id} (${record.name}), scopes ${record.scopes.join(',')}, plan ${record.plan}.`,
        );
        out(`Key (shown once, store it now): ${key}`);
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
      if (opts.json) return out(JSON.stringify(views));
      if (!views.length) return out('No keys.');
      for (const v of views) {
        out([v.id, v.prefix + '...', v.status, v.plan, v.scopes.join(','), v.name].join('\t'));
      }
    });

  keys
    .command('revoke <id>')
    .description('Revoke a key: from now on it gets 401')
    .action(async (id: string) => {
      const revoked = await withContext((app) => app.get(ApiKeysService).revoke(id));
      if (!revoked) throw new Error(`API key not found: ${id}`);
      out(`Revoked ${id}.`);
    });

  program
    .command('doctor')
    .description('Run the health checks; exit 1 when any fails (for deploy pipelines)')
    .option('--fix', 'fix what is fixable, then check again')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { fix?: boolean; json?: boolean }) => {
      const report = await withContext((app) => app.get(DoctorService).run(Boolean(opts.fix)));
      if (opts.json) out(JSON.stringify(report));
      else {
        for (const c of report.checks) {
          out(
            `${c.status.toUpperCase().padEnd(4)}  ${c.name.padEnd(18)} ${c.message}${c.fixable ? ' (fixable: --fix)' : ''}`,
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
    process.stderr.write(`error: ${e.message ?? String(error)}\n`);
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
