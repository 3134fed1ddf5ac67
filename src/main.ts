// First: V8's heap settings hold before any module allocates (see the file).
import './kernel/common/heap-tuning';
// Second: `.env`, read before anything reads the environment as it loads (the tracing gate).
import './kernel/settings/env-file';
// Third: the OpenTelemetry SDK, when asked for, before node:http and ioredis are loaded.
import './tracing';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { rootModule } from './app.module';
import { configureApp } from './app.setup';
import { httpPlatform } from './kernel/http/platform';
import { prepareEnvironment } from './kernel/settings/environment';
import { SettingsError } from './kernel/settings/settings';
import { StoreUnavailableError } from './kernel/store/store';
import { ConfigSourceError, ConfigurationService } from './configuration';

async function bootstrap(): Promise<void> {
  const settings = prepareEnvironment();
  const platform = httpPlatform(settings.httpAdapter);
  const app = await NestFactory.create(rootModule('server'), platform.createAdapter(settings), {
    bufferLogs: true,
    abortOnError: false,
    // Each adapter's file installs the one JSON body parser (src/kernel/http/).
    bodyParser: false,
  });
  configureApp(app);
  // Initialised first: the listening address is part of the configuration tree.
  await app.init();
  const { host, port } = app.get(ConfigurationService).listenAddress();
  await app.listen(port, host).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'EADDRINUSE' ? new Error(`${host}:${port} is already in use`) : error;
  });
  new Logger('Bootstrap').log(
    `Listening on http://${host}:${port} with ${platform.name} (docs: /docs, health: /health)`,
  );
}

/** An operator's mistake (environment, CONFIG_FILE, a busy port, no store) is one line; anything else, its stack. */
function startupFailure(error: unknown): string {
  if (
    error instanceof SettingsError ||
    error instanceof ConfigSourceError ||
    error instanceof StoreUnavailableError
  ) {
    return error.message;
  }
  if (error instanceof Error && /is already in use$/.test(error.message)) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`Start-up failed: ${startupFailure(error)}\n`);
  process.exit(1);
});
