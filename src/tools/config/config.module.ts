import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ConfigController } from './config.controller';
import { ConfigSection, ConfigSectionDefinition } from './config.schema';
import { ConfigService } from './config.service';

/** Holds one contributed section; see `ConfigModule.forFeature`. */
@Module({})
export class ConfigSectionModule {}

/**
 * The configuration tools and the one `ConfigService` of the process, global so that any module can
 * inject it.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  controllers: [ConfigController],
  providers: [ConfigService],
  exports: [ConfigService],
})
export class ConfigModule {
  /**
   * A module's own section of the tree: import `ConfigModule.forFeature({name, keys})` in the module.
   * Its keys are then shown, read, set, pinned by `APP__<SECTION>__<KEY>` and read from CONFIG_FILE
   * like the service's own.
   */
  static forFeature(section: ConfigSectionDefinition): DynamicModule {
    return {
      module: ConfigSectionModule,
      providers: [
        { provide: `ConfigSection:${section.name}`, useValue: new ConfigSection(section) },
      ],
    };
  }
}
