import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { stat } from 'node:fs/promises';
import { privateDir } from '../../../kernel/common/private-files';
import { resolve } from 'node:path';
import { liesInside } from '../../../kernel/common/paths';
import { Settings, SETTINGS } from '../../../kernel/settings/settings';
import { ConfigurationService } from '../../../configuration';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass, warn } from '../doctor-check';

interface CacheState {
  enabled: boolean;
  dir: string;
  /** Whether this process may create the directory itself (see `mayCreate`). */
  creatable: boolean;
}

/**
 * The cache directory must exist while `llm_config.cache_enabled` is on. Fixing creates it, but only
 * where creating a directory is harmless: inside DATA_DIR, or where the operator (defaults, file,
 * environment) put it. A path set through `config_set` by a key holder is never created elsewhere.
 */
@DoctorCheck({ order: 70 })
@Injectable()
export class CacheDirectoryCheck implements HealthCheck, OnApplicationBootstrap {
  readonly name = 'cache_directory';

  constructor(
    private readonly config: ConfigurationService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  private async state(): Promise<CacheState> {
    const enabled = (await this.config.resolve('llm_config.cache_enabled')).value === true;
    const { value, layer } = await this.config.resolve('llm_config.cache_dir');
    const dir = resolve(this.settings.dataDir, String(value));
    return {
      enabled,
      dir,
      creatable: liesInside(this.settings.dataDir, dir) || layer !== 'override',
    };
  }

  /** A first start has no cache directory yet: create it where that is harmless. */
  async onApplicationBootstrap(): Promise<void> {
    const outcome = await this.check().catch(() => undefined);
    if (outcome?.fixable) await this.fix().catch(() => undefined);
  }

  async check(): Promise<CheckOutcome> {
    const { enabled, dir, creatable } = await this.state();
    if (!enabled)
      return pass('Caching is off (llm_config.cache_enabled is false): no cache directory needed');
    try {
      if ((await stat(dir)).isDirectory()) return pass(`Cache directory ${dir} exists`);
      return fail(
        `Cache path ${dir} exists but is not a directory; move it away or set llm_config.cache_dir`,
      );
    } catch {
      return creatable
        ? warn(
            `Cache directory ${dir} is missing while llm_config.cache_enabled is true; fix creates it`,
            true,
          )
        : warn(
            `Cache directory ${dir} is missing while llm_config.cache_enabled is true; it was set through config_set outside DATA_DIR, so create it by hand or set llm_config.cache_dir`,
          );
    }
  }

  async fix(): Promise<void> {
    const { enabled, dir, creatable } = await this.state();
    if (enabled && creatable) privateDir(dir);
  }
}
