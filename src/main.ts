import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { ConfigService } from './tools/config/config.service';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule, { bufferLogs: true });
  configureApp(app);
  // Initialised first: the listening address is part of the configuration tree.
  await app.init();
  const { host, port } = app.get(ConfigService).listenAddress();
  await app.listen(port, host);
}

void bootstrap();
