import { Inject, Injectable } from '@nestjs/common';
import {
  ENVIRONMENT,
  Environment,
  loadSettings,
  Settings,
  SETTINGS,
} from '../../../kernel/settings/settings';
import { readConfigFile, ConfigurationService } from '../../../configuration';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass } from '../doctor-check';

/**
 * CONFIG_FILE as it is on disk now: start-up refuses an invalid file, but it can be edited since,
 * and the next restart would then fail.
 */
@DoctorCheck({ order: 20 })
@Injectable()
export class ConfigFileCheck implements HealthCheck {
  readonly name = 'config_file';

  constructor(
    private readonly config: ConfigurationService,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(ENVIRONMENT) private readonly env: Environment,
  ) {}

  check(): Promise<CheckOutcome> {
    const file = this.settings.configFile;
    if (!file) {
      return Promise.resolve(
        pass('No CONFIG_FILE is set: defaults, stored overrides and the environment apply'),
      );
    }
    try {
      // Read from disk again: its `limits:` section, then the tree's layer.
      const now = loadSettings(this.env);
      const keys = readConfigFile(file, now.configDocument, this.config.schema);
      return Promise.resolve(pass(`CONFIG_FILE ${file} is valid (${keys.size} key(s) set)`));
    } catch (error) {
      return Promise.resolve(
        fail(
          `${(error as Error).message}; fix the file: the next start would refuse it (this process still runs with what it read at start-up)`,
        ),
      );
    }
  }
}
