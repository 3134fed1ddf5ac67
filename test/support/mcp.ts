import { Body, Module } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../../src/kernel/errors/api-error';
import { StringField } from '../../src/kernel/validation/fields';
import { Tool, ToolController } from '../../src/tools/tool.decorator';
import { bearer, startApp, TestApp, TestAppOptions, listenOnLoopback } from './app';

export const QUOTA_TEXT = /^Daily request limit exceeded \(2\/2\)\. Resets in \d+h \d+m\./;

/** A tool that fails on purpose, to see how failures reach an MCP client. */
class FailInput {
  @StringField({ description: 'How to fail: conflict or crash.', enum: ['conflict', 'crash'] })
  how: string;
}
class FailResult {}

@ToolController()
class FailController {
  @Tool({ name: 'fail', description: 'Always fails.', input: FailInput, output: FailResult })
  fail(@Body() input: FailInput): FailResult {
    if (input.how === 'conflict') throw new ApiError(409, 'Conflict: the thing is busy');
    throw new Error('boom: internal detail that must not leak');
  }
}

@Module({ controllers: [FailController] })
export class FailToolModule {}

export type CallResult = Awaited<ReturnType<Client['callTool']>>;

export function textOf(result: CallResult): string {
  const [first] = result.content as { type: string; text: string }[];
  expect(first.type).toBe('text');
  return first.text;
}

export async function protocolError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

export interface McpApp {
  t: TestApp;
  /** The /mcp endpoint of the listening app. */
  url: URL;
  /** A services:execute key without a quota. */
  standard: string;
}

/**
 * The app the MCP tests talk to: the fail tool mounted, one browser Origin allowed, listening on a
 * loopback port (the SDK's HTTP client needs a URL).
 */
export async function startMcpApp(
  options: Pick<TestAppOptions, 'configure'> = {},
): Promise<McpApp> {
  const t = await startApp({
    env: { MCP_ALLOWED_ORIGINS: 'https://agent.example' },
    imports: [FailToolModule],
    ...options,
  });
  try {
    const port = await listenOnLoopback(t.app);
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const standard = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    return { t, url, standard };
  } catch (error) {
    await t.close();
    throw error;
  }
}

/** The SDK clients a test opened, closed together after it (afterEach). */
export class McpClients {
  private readonly open: Client[] = [];

  /** Connects an SDK client over streamable HTTP, with a key and extra headers. */
  async connect(url: URL, key?: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { ...(key ? bearer(key) : {}), ...headers } },
    });
    await client.connect(transport);
    this.open.push(client);
    return client;
  }

  /** Closes `client` with the others after the test. */
  track(client: Client): void {
    this.open.push(client);
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((c) => c.close()));
  }
}
