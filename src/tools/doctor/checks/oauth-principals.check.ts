import { Injectable } from '@nestjs/common';
import { PrincipalsService } from '../../../oauth';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass, warn } from '../doctor-check';

/** From this share of OAUTH_MAX_PRINCIPALS on, the check warns. */
const WARN_AT = 0.8;

/**
 * How many OAuth principals exist against OAUTH_MAX_PRINCIPALS: a warning from 80 % on, a failure
 * once full (a new subject is refused with 403 until idle principals are purged or the limit is
 * raised).
 */
@DoctorCheck({ order: 86 })
@Injectable()
export class OAuthPrincipalsCheck implements HealthCheck {
  readonly name = 'oauth_principals';

  constructor(private readonly principals: PrincipalsService) {}

  async check(): Promise<CheckOutcome> {
    const occupancy = await this.principals.occupancy();
    if (!occupancy) return pass('OAuth is off (OAUTH_ISSUERS is not set)');
    const { count, max } = occupancy;
    const share = `${count} of ${max} principals (${Math.floor((count / max) * 100)} %)`;
    const remedy =
      'raise OAUTH_MAX_PRINCIPALS, lower OAUTH_PRINCIPAL_IDLE_DAYS, or delete principals';
    if (count >= max) return fail(`${share}: new subjects are refused (403); ${remedy}`);
    if (count >= max * WARN_AT) {
      return warn(`${share}: past ${max}, new subjects are refused (403); ${remedy}`);
    }
    return pass(share);
  }
}
