import { Module } from '@nestjs/common';
import { ConfigController } from './config.controller';

/** The three tools over the configuration tree: config_show, config_get, config_set. */
@Module({ controllers: [ConfigController] })
export class ConfigToolsModule {}
