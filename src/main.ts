import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { Settings, SETTINGS } from './settings/settings';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule, { bufferLogs: true });
  configureApp(app);
  const settings = app.get<Settings>(SETTINGS);
  await app.listen(settings.port, settings.host);
}

void bootstrap();
