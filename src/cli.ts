#!/usr/bin/env node
import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Command, Option } from 'commander';
import { Console } from 'node:console';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_ACTOR, AuditService } from './audit';
import { KeyRequestError } from './subjects';
import { wholeNumber } from './transports/cli/cli.options';
import { auditActor, line, out } from './transports/cli/cli.output';
import { addKeyCommands } from './transports/cli/keys.commands';
import { addWebhookCommands } from './transports/cli/webhooks.commands';
import { addLedgerCommands } from './transports/cli/ledger.commands';
import { addToolCommands } from './transports/cli/tools.commands';
import { ApiError } from './kernel/errors/api-error';
import { printable } from './kernel/common/text';
import { prepareEnvironment } from './kernel/settings/environment';
import { TOOL_MODULES } from './tools';
import { declaredToolNames } from './tools/index';
import { DoctorService } from './tools/doctor/doctor.service';

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

/** The variables the CLI reads (from the environment or `.env` in the working directory). */
const ENVIRONMENT_HELP = `
Environment (also read from .env in the working directory; the environment wins):
  DATA_DIR              where the embedded store lives (default ./data)
  REDIS_URL             the store is Redis instead (the server's REDIS_URL and REDIS_KEY_PREFIX)
  REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_CLUSTER_NODES, REDIS_PASSWORD,
  REDIS_SENTINEL_PASSWORD   or a master through Sentinels, or a Redis Cluster, as the server's
  REDIS_KEY_PREFIX      namespace of the Redis keys (default tis:)
  CONFIG_FILE           the server's YAML configuration (plans under limits:)
  PLAN_<NAME>_DAILY_LIMIT, PLAN_<NAME>_MONTHLY_LIMIT, PLAN_<NAME>_RATE_LIMIT,
  PLAN_<NAME>_BURST, DEFAULT_PLAN
                        plans, as the server has them
  MCP_API_KEY           the key of 'mcp' when --key is not given
Exit codes: 0 done, 1 failed (store unreachable, doctor found failures), 2 bad usage.`;

export function buildCli(): Command {
  const program = new Command('cli')
    .description('Operator commands for the tool invocation service')
    .version(packageVersion(), '-V, --version', 'print the version')
    .addHelpText('after', ENVIRONMENT_HELP);
  program.exitOverride();
  const tools = declaredToolNames(TOOL_MODULES);
  addKeyCommands(program, withContext, tools);
  addWebhookCommands(program, withContext);
  addLedgerCommands(program, withContext);
  addToolCommands(program, tools);

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
        out(line`${e.id}\t${e.at}\t${auditActor(e)}\t${e.action}\t${e.target}\t${details}`);
      }
    });

  program
    .command('doctor')
    .description('Run the health checks; exit 1 when any fails (for deploy pipelines)')
    .option('--fix', 'fix what is fixable, then check again')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { fix?: boolean; json?: boolean }) => {
      const report = await withContext((app) =>
        app.get(DoctorService).diagnose(Boolean(opts.fix), CLI_ACTOR),
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
      const { serveMcpOverStdio } = await import('./transports/mcp/mcp.stdio');
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
    // The service's own refusals (a webhook's URL, an unknown endpoint) say why in their detail.
    const message = error instanceof ApiError ? String(error.detail) : e.message;
    process.stderr.write(`error: ${printable(message ?? String(error))}\n`);
    // A request the service refuses (an unknown template, scope or plan, a 4xx) is bad usage too.
    if (error instanceof ApiError) return error.getStatus() === 404 ? 1 : 2;
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
  // stdout is the command's output, or `mcp`'s protocol stream: what writes to the console (the
  // OpenTelemetry console exporter, with OTEL_TRACES_EXPORTER=console) writes to stderr.
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
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
