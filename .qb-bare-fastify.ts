import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
@Controller('api/v1/services')
class GreetController {
  @Post('greet')
  @HttpCode(200)
  greet(@Body() body: { name: string; shout?: boolean }) {
    const message = `Hello, ${body.name}!`;
    return { message: body.shout ? message.toUpperCase() : message, times: 1 };
  }
}
@Module({ controllers: [GreetController] })
class BareModule {}
async function main() {
  const app = await NestFactory.create(BareModule, new FastifyAdapter(), { logger: false });
  await app.listen(Number(process.env.PORT), '127.0.0.1');
}
void main();
