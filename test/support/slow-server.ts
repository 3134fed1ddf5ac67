/**
 * A real server process for the graceful-shutdown test, started as main.ts starts the service
 * (rootModule('server'), configureApp, listen) plus one slow tool, on a free loopback port that it prints as
 * `listening <port>`. Run with `node -r ts-node/register/transpile-only test/support/slow-server.ts`.
 *
 * The `slow` tool prints `in-flight` when called, then answers only once the process has received
 * SIGTERM and the server has stopped accepting connections: the request is surely in flight while
 * the service shuts down, whatever the machine's speed.
 */
import 'reflect-metadata';
import { Body, Module } from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import { ApiProperty } from '@nestjs/swagger';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { rootModule } from '../../src/app.module';
import { configureApp } from '../../src/app.setup';
import { httpPlatform } from '../../src/kernel/http/platform';
import { loadSettings } from '../../src/kernel/settings/settings';
import { Tool, ToolController } from '../../src/tools/tool.decorator';

class SlowInput {}

class SlowResult {
  @ApiProperty() finished: boolean;
}

@ToolController()
class SlowController {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  @Tool({
    name: 'slow',
    description: 'Answers once shutdown began.',
    input: SlowInput,
    output: SlowResult,
  })
  async slow(@Body() _input: SlowInput): Promise<SlowResult> {
    const signalled = new Promise((resolve) => process.once('SIGTERM', resolve));
    process.stdout.write('in-flight\n');
    await signalled;
    const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    for (let i = 0; i < 1000 && server.listening; i++) await sleep(10);
    return { finished: !server.listening };
  }
}

@Module({ controllers: [SlowController] })
class SlowToolModule {}

async function main(): Promise<void> {
  const settings = loadSettings(process.env);
  const app = await NestFactory.create(
    rootModule('server', { imports: [SlowToolModule] }),
    httpPlatform(settings.httpAdapter).createAdapter(settings),
    { bufferLogs: true, bodyParser: false },
  );
  configureApp(app);
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  process.stdout.write(`listening ${port}\n`);
}

void main();
