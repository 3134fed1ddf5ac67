import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Logger } from 'nestjs-pino';
import type { Readable, Writable } from 'node:stream';
import { TOOL_MODULES } from '../app.module';
import { notAuthenticated } from '../auth/api-key.guard';
import { ApiKeysService } from '../auth/api-keys.service';
import { KeysModule } from '../auth/auth.module';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { hasScope } from '../auth/scopes';
import { INSUFFICIENT_PERMISSIONS } from '../auth/scopes.guard';
import { LimitsModule } from '../limits/limits.module';
import { StderrLoggingModule } from '../logging/logging.module';
import { SettingsModule } from '../settings/settings.module';
import { StoreModule } from '../store/store.module';
import { TOOL_SCOPE } from '../tools/tool.decorator';
import { ToolsModule } from '../tools/tools.module';
import { McpCoreModule } from './mcp.module';
import { McpServerFactory } from './mcp.server';

/**
 * The server's services without HTTP: the same settings, store, keys, limits and tools, with logs on
 * stderr because stdout carries the protocol.
 */
@Module({
  imports: [
    SettingsModule,
    StderrLoggingModule,
    StoreModule,
    KeysModule,
    LimitsModule,
    ToolsModule,
    McpCoreModule,
    ...TOOL_MODULES,
  ],
})
export class McpStdioModule {}

/** Why the stdio server would not start: printed on stderr by the CLI. */
export class McpStdioRefused extends Error {}

async function authenticate(keys: ApiKeysService, token: string): Promise<AuthenticatedKey> {
  const key = await keys.authenticate(token);
  if (!key) throw notAuthenticated('Invalid API key');
  return key;
}

/** Stops the server when the client closes stdin or the process is told to stop; returns the unhook. */
function untilClosed(stdin: Readable, stop: () => Promise<void>): () => void {
  const onEnd = () => void stop();
  stdin.once('end', onEnd);
  process.once('SIGINT', onEnd);
  process.once('SIGTERM', onEnd);
  return () => {
    stdin.off('end', onEnd);
    process.off('SIGINT', onEnd);
    process.off('SIGTERM', onEnd);
  };
}

/**
 * Serves MCP over stdio as the given key until the client goes away. The key must be valid and hold
 * services:execute to start, and is checked again on every tools/call (a revoked key stops working);
 * calls count against its rate limit and daily quota exactly as over HTTP.
 */
export async function serveMcpOverStdio(
  token: string,
  stdin: Readable = process.stdin,
  stdout: Writable = process.stdout,
): Promise<void> {
  const app = await NestFactory.createApplicationContext(McpStdioModule, {
    logger: false,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  try {
    const keys = app.get(ApiKeysService);
    const key = await keys.authenticate(token);
    if (!key) throw new McpStdioRefused('Invalid API key');
    if (!hasScope(key.scopes, TOOL_SCOPE)) {
      throw new McpStdioRefused(`${INSUFFICIENT_PERMISSIONS} The key needs ${TOOL_SCOPE}.`);
    }
    const server = app
      .get(McpServerFactory)
      .create(() => authenticate(keys, token), { rateCounted: false });
    const closed = new Promise<void>((resolve) => (server.onclose = resolve));
    const release = untilClosed(stdin, () => server.close());
    try {
      await server.connect(new StdioServerTransport(stdin, stdout));
      await closed;
    } finally {
      release();
    }
  } finally {
    await app.close();
  }
}
