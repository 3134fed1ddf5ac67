import { Global, Module } from '@nestjs/common';
import { ENVIRONMENT, Environment, loadSettings, SETTINGS } from './settings';

/** Environment and typed settings, global: every module reads settings, never `process.env`. */
@Global()
@Module({
  providers: [
    { provide: ENVIRONMENT, useValue: process.env },
    {
      provide: SETTINGS,
      inject: [ENVIRONMENT],
      useFactory: (env: Environment) => loadSettings(env),
    },
  ],
  exports: [ENVIRONMENT, SETTINGS],
})
export class SettingsModule {}
