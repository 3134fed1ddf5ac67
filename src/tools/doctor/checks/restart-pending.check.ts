import { Injectable } from '@nestjs/common';
import { ConfigurationService } from '../../../configuration';
import { CheckOutcome, DoctorCheck, HealthCheck, pass, warn } from '../doctor-check';

/** Keys read once at start-up (`server.*`) configured differently from what the process runs with. */
@DoctorCheck({ order: 40 })
@Injectable()
export class RestartPendingCheck implements HealthCheck {
  readonly name = 'restart_pending';

  constructor(private readonly config: ConfigurationService) {}

  async check(): Promise<CheckOutcome> {
    const pending = await this.config.pendingRestart();
    if (!pending.length) return pass('The process runs with the configured server settings');
    const list = pending
      .map(
        ({ key, running, configured }) =>
          `${key} is ${JSON.stringify(configured)} but runs as ${JSON.stringify(running)}`,
      )
      .join('; ');
    return warn(`Restart the service to apply: ${list}`);
  }
}
