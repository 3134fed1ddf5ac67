import { Injectable } from '@nestjs/common';
import { AuthorizationServers } from '../../../oauth';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass } from '../doctor-check';

/**
 * Every authorization server of OAUTH_ISSUERS answers: its metadata names it and its keys can be
 * fetched. One that cannot is a failure: its tokens are answered 503 until it answers.
 */
@DoctorCheck({ order: 85 })
@Injectable()
export class OAuthIssuersCheck implements HealthCheck {
  readonly name = 'oauth_issuers';

  constructor(private readonly servers: AuthorizationServers) {}

  async check(): Promise<CheckOutcome> {
    const states = await this.servers.probe();
    if (states.length === 0) return pass('OAuth is off (OAUTH_ISSUERS is not set)');
    const failed = states.filter((state) => !state.ok);
    if (failed.length) {
      const which = failed.map((s) => `${s.issuer} (${s.failure ?? 'not yet read'})`).join('; ');
      return fail(
        `Authorization server(s) cannot be read: ${which}; their tokens are answered 503 until they answer`,
      );
    }
    return pass(
      `${states.length} authorization server(s) answer with their keys: ${states.map((s) => s.issuer).join(', ')}`,
    );
  }
}
