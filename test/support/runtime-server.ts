/**
 * The service with the runtime's test tools, as a process of its own (for a test that kills it):
 * started with `node -r ts-node/register/transpile-only test/support/runtime-server.ts`, its whole
 * environment in RUNTIME_APP_ENV (JSON, DATA_DIR included), it listens on a free loopback port and
 * prints one JSON line: `{"port": …, "adminKey": "…"}`.
 */
// First, as in main.ts: the server's heap settings hold before any module allocates.
import '../../src/kernel/common/heap-tuning';
import { startApp, listenOnLoopback } from './app';
import { RuntimeToolsModule } from './runtime-tools.module';

async function main(): Promise<void> {
  const env = JSON.parse(process.env.RUNTIME_APP_ENV ?? '{}') as Record<string, string>;
  const t = await startApp({ env, dataDir: env.DATA_DIR, imports: [RuntimeToolsModule] });
  const port = await listenOnLoopback(t.app);
  process.stdout.write(`${JSON.stringify({ port, adminKey: t.adminKey })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
