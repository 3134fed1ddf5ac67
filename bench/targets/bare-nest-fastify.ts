import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { BareModule } from './bare-nest';

/** The framework's floor on Fastify: the module of `bare-nest.ts` on @nestjs/platform-fastify. */
async function main() {
  const app = await NestFactory.create<NestFastifyApplication>(BareModule, new FastifyAdapter(), {
    logger: false,
  });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT), '127.0.0.1');
}
void main();
