import { Inject, Injectable } from '@nestjs/common';
import { keyStatus, KeyStore } from '../../../subjects';
import { hasScope } from '../../../kernel/auth/scopes';
import { planNamed, Settings, SETTINGS } from '../../../kernel/settings/settings';
import { CheckOutcome, DoctorCheck, HealthCheck, pass, warn } from '../doctor-check';

/** Keys named in a warning, at most: the message stays one readable line. */
const NAMED = 5;

/**
 * Someone must be able to call the tools: at least one active key with services:execute. And every
 * key's plan is a plan: a key stored with a plan that is none (removed from CONFIG_FILE since, or
 * stored before plans were checked as names) gets the default plan's limits, which its owner may
 * not expect.
 */
@DoctorCheck({ order: 80 })
@Injectable()
export class ApiKeysCheck implements HealthCheck {
  readonly name = 'api_keys';

  constructor(
    private readonly store: KeyStore,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async check(): Promise<CheckOutcome> {
    const now = new Date();
    const keys = await this.store.listKeys();
    const active = keys.filter((key) => keyStatus(key, now) === 'active');
    const usable = active.filter((key) => hasScope(key.scopes, 'services:execute'));
    if (!usable.length) {
      return warn(
        `No active API key has the scope services:execute (${keys.length} key(s) in all), so no one can call a tool; create one: npm run --silent cli -- keys create --name <name> --template standard`,
      );
    }
    const planless = active.filter((key) => !planNamed(this.settings.plans, key.plan));
    if (planless.length) {
      const named = planless
        .slice(0, NAMED)
        .map((key) => `${key.id} (plan ${JSON.stringify(key.plan)})`);
      const more = planless.length > NAMED ? ` and ${planless.length - NAMED} more` : '';
      return warn(
        `${planless.length} active key(s) have a plan that is not one of ${Object.keys(this.settings.plans).join(', ')} and get the default plan's (${this.settings.defaultPlan}) limits: ${named.join(', ')}${more}; give each a plan: npm run --silent cli -- keys update <id> --plan <plan>`,
      );
    }
    return pass(`${usable.length} active key(s) can call tools (scope services:execute)`);
  }
}
