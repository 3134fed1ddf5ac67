import { Injectable } from '@nestjs/common';
import { keyStatus } from '../../../auth/api-keys.service';
import { hasScope } from '../../../auth/scopes';
import { Store } from '../../../store/store';
import { CheckOutcome, DoctorCheck, HealthCheck, pass, warn } from '../doctor-check';

/** Someone must be able to call the tools: at least one active key with services:execute. */
@DoctorCheck({ order: 80 })
@Injectable()
export class ApiKeysCheck implements HealthCheck {
  readonly name = 'api_keys';

  constructor(private readonly store: Store) {}

  async run(): Promise<CheckOutcome> {
    const now = new Date();
    const keys = await this.store.listKeys();
    const usable = keys.filter(
      (key) => keyStatus(key, now) === 'active' && hasScope(key.scopes, 'services:execute'),
    );
    if (usable.length) {
      return pass(`${usable.length} active key(s) can call tools (scope services:execute)`);
    }
    return warn(
      `No active API key has the scope services:execute (${keys.length} key(s) in all), so no one can call a tool; create one: npm run --silent cli -- keys create --name <name> --template standard`,
    );
  }
}
