import { DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ConfigSectionDefinition } from './configuration.types';
import { ConfigSection } from './configuration.schema';
import { ConfigurationService } from './configuration.service';
import { CONFIGURATION_STORES } from './configuration.stores';

/** Holds one contributed section; see `ConfigurationModule.forFeature`. */
@Module({})
export class ConfigSectionModule {}

/**
 * The layered configuration tree of the process (defaults, CONFIG_FILE, stored overrides, the
 * environment) and its one `ConfigurationService`, global so that any module can inject it. Named
 * so as not to shadow `@nestjs/config`, which a team may use beside it.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [...CONFIGURATION_STORES, ConfigurationService],
  exports: [ConfigurationService],
})
export class ConfigurationModule {
  /**
   * A module's own section of the tree: import `ConfigurationModule.forFeature({name, keys})` in the
   * module. Its keys are then shown, read, set, pinned by `APP__<SECTION>__<KEY>` and read from
   * CONFIG_FILE like the service's own.
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
