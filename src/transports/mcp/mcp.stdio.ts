import { HttpException, INestApplicationContext, Logger } from '@nestjs/common';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Readable, Writable } from 'node:stream';
import { INSUFFICIENT_PERMISSIONS } from '../../kernel/auth/auth.errors';
import { ANY_TOOL_SCOPE } from '../../kernel/auth/scopes';
import { CallChecks, ToolCaller, ToolInvoker } from '../../invocations';
import { TOOL_SCOPE } from '../../tools/index';
import { McpServerFactory } from './mcp.server';
import { McpCatalogs } from './mcp-catalog';

/** Why the stdio server would not start: printed on stderr by the CLI. */
export class McpStdioRefused extends Error {}

/** Resolves when the client closes stdin or the process is told to stop. */
function untilClosed(stdin: Readable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stdin.off('end', done);
      stdin.off('close', done);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    stdin.once('end', done);
    stdin.once('close', done);
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

/** The stdio caller: its key as a bearer value, checked by CallChecks on every call. */
function stdioCaller(token: string): ToolCaller {
  return { transport: 'mcp-stdio', authorization: [`Bearer ${token}`], client: 'stdio' };
}

/**
 * The key must be valid and hold services:execute for the server to start: the authentication and
 * scope checks of every call (CallChecks), not counted against the rate limit.
 */
async function admit(app: INestApplicationContext, token: string): Promise<void> {
  try {
    await app.get(CallChecks).check({
      ...stdioCaller(token),
      // Admitting the key is not a call: nothing is charged.
      rateLimitCounted: true,
      scopes: [ANY_TOOL_SCOPE],
      bearerErrorCodes: false,
    });
  } catch (error) {
    if (!(error instanceof HttpException) || error.getStatus() >= 500) throw error;
    const { detail } = error.getResponse() as { detail?: unknown };
    if (typeof detail !== 'string') throw error;
    throw new McpStdioRefused(
      detail === INSUFFICIENT_PERMISSIONS ? `${detail} The key needs ${TOOL_SCOPE}.` : detail,
    );
  }
}

/**
 * Serves MCP over the given streams as one key until the client goes away, on an application
 * context built by `rootModule('stdio')` (the CLI passes process.stdin/stdout; tests, streams of
 * their own). Calls count against the key's rate limit and daily quota exactly as over HTTP.
 */
export async function serveMcpOverStdio(
  app: INestApplicationContext,
  token: string,
  stdin: Readable = process.stdin,
  stdout: Writable = process.stdout,
): Promise<void> {
  await admit(app, token);
  const servers = app.get(McpServerFactory);
  const catalog = app.get(McpCatalogs).all;
  const logger = new Logger('Mcp');
  // The SDK's stdio entry: the opening message pins the revision (2026-07-28 after `server/discover`,
  // or the 2025 handshake) and one server from the factory serves the connection.
  const invoker = app.get(ToolInvoker);
  const handle = serveStdio(
    () =>
      servers.create({
        callerOf: () => stdioCaller(token),
        network: 'pipe',
        catalog,
        // The key, authenticated again (it may have been revoked or changed since the start).
        who: () => invoker.identify(stdioCaller(token)),
      }),
    {
      transport: new StdioServerTransport(stdin, stdout),
      onerror: (error) => logger.warn(`MCP over stdio: ${error.message}`),
    },
  );
  try {
    await untilClosed(stdin);
  } finally {
    await handle.close();
  }
}
