import { Injectable } from '@nestjs/common';
import { ConfigurationService } from '../../../configuration';
import { CheckOutcome, DoctorCheck, HealthCheck, pass, warn } from '../doctor-check';

/** Stored overrides the schema rejects are ignored; fixing removes them (and only them). */
@DoctorCheck({ order: 30 })
@Injectable()
export class ConfigOverridesCheck implements HealthCheck {
  readonly name = 'config_overrides';

  constructor(private readonly config: ConfigurationService) {}

  async check(): Promise<CheckOutcome> {
    const snapshot = await this.config.snapshot();
    const invalid = snapshot.invalidOverrides;
    if (!invalid.length) {
      return pass(`${snapshot.overrides.size} stored override(s), all valid`);
    }
    const list = invalid.map(({ key, reason }) => `'${key}' (${reason})`).join('; ');
    return warn(`Invalid stored override(s), ignored: ${list}; fix removes them`, true);
  }

  async fix(): Promise<void> {
    for (const { key } of await this.config.invalidOverrides()) {
      await this.config.removeOverride(key);
    }
  }
}
