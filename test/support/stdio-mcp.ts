import type { INestApplicationContext, Type } from '@nestjs/common';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Test } from '@nestjs/testing';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import { PassThrough } from 'node:stream';
import { rootModule } from '../../src/app.module';
import { LOG_DESTINATION } from '../../src/logging/log-control';
import { serveMcpOverStdio } from '../../src/transports/mcp/mcp.stdio';
import { ENVIRONMENT } from '../../src/kernel/settings/settings';
import { baseEnv, LogCapture } from './app';

/** The client end of a pair of in-process streams, speaking MCP's newline-delimited JSON. */
class StreamClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) {
        this.onmessage?.(message);
      }
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
    return Promise.resolve();
  }
}

/** The client end, with the face both SDKs' clients share for what the tests ask. */
export type StdioClient = Pick<Client, 'callTool' | 'listTools' | 'close'>;

export interface StdioMcp {
  client: StdioClient;
  logs: LogCapture;
  /** Ends the session and closes the application context. */
  close(): Promise<void>;
}

/**
 * The stdio MCP server in this process, as `cli mcp` builds it (rootModule('stdio')), on the given
 * data directory and key, with an SDK client connected over in-memory streams: no child process.
 */
export async function startStdioMcp(options: {
  dataDir: string;
  key: string;
  env?: Record<string, string>;
  imports?: Type[];
  tools?: Type[];
  /** The 1.x SDK's client (2025, the default) or the 2.x client pinned to 2026-07-28. */
  client?: 'v1' | 'modern';
}): Promise<StdioMcp> {
  __resetOutOfContextForTests();
  const logs = new LogCapture();
  const app: INestApplicationContext = await Test.createTestingModule({
    imports: [rootModule('stdio', { tools: options.tools, imports: options.imports })],
  })
    .overrideProvider(ENVIRONMENT)
    .useValue({ ...baseEnv(options.dataDir), DATA_DIR: options.dataDir, ...options.env })
    .overrideProvider(LOG_DESTINATION)
    .useValue(logs)
    .compile();
  await app.init();
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const serving = serveMcpOverStdio(app, options.key, toServer, fromServer);
  const client: StdioClient & { connect(transport: StreamClientTransport): Promise<void> } =
    options.client === 'modern'
      ? (new Client2(
          { name: 'e2e-stdio-in-process', version: '1.0.0' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } } },
        ) as unknown as StdioClient & { connect(transport: StreamClientTransport): Promise<void> })
      : new Client({ name: 'e2e-stdio-in-process', version: '1.0.0' });
  try {
    await client.connect(new StreamClientTransport(toServer, fromServer));
  } catch (error) {
    await app.close();
    throw error;
  }
  return {
    client,
    logs,
    async close() {
      try {
        await client.close();
        await serving;
      } finally {
        await app.close();
      }
    },
  };
}
