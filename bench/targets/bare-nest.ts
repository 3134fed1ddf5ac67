import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/** The framework's floor: NestJS with one POST route returning greet's JSON (express here). */
@Controller('api/v1/services')
class GreetController {
  @Post('greet')
  @HttpCode(200)
  greet(@Body() body: { name: string; shout?: boolean }) {
    const message = `Hello, ${body.name}!`;
    return { message: body.shout ? message.toUpperCase() : message, times: 1 };
  }
}

/** The same module serves `bare-nest-fastify.ts`. */
@Module({ controllers: [GreetController] })
export class BareModule {}

async function main() {
  const app = await NestFactory.create(BareModule, { logger: false });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT), '127.0.0.1');
}
if (require.main === module) void main();
