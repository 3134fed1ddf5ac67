import { Injectable } from '@nestjs/common';
import { KeyStore } from '../../../subjects';
import { Store } from '../../../kernel/store/store';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass, warn } from '../doctor-check';

/**
 * The store answers and its own integrity checks find nothing (SQLite quick_check; Redis
 * persistence and the key index against its records); settings that risk data (Redis without AOF,
 * fewer replicas than REDIS_WAIT_REPLICAS) are a warning. On Redis the message names the
 * topology: the Sentinels and the master they name now, or the cluster's masters and replicas.
 */
@DoctorCheck({ order: 60 })
@Injectable()
export class StoreCheck implements HealthCheck {
  readonly name = 'store';

  constructor(
    private readonly store: Store,
    private readonly keys: KeyStore,
  ) {}

  async check(): Promise<CheckOutcome> {
    let where = `${this.store.kind} store ${this.store.describe()}`;
    try {
      const topology = await this.store.probe();
      // Described again: the master a Sentinel names is known once the probe has reached it.
      where = `${this.store.kind} store ${this.store.describe()}`;
      if (topology) where += ` [${topology.mode}, ${topology.nodes} node(s)]`;
      const problems = [
        ...(await this.store.checkIntegrity()),
        ...(await this.keys.checkIntegrity()),
      ];
      if (problems.length) {
        return fail(
          `The ${where} reports damage: ${problems.slice(0, 3).join('; ')}; restore it from a backup`,
        );
      }
      const warnings = await this.store.durabilityWarnings();
      if (warnings.length) return warn(`The ${where} is intact, but: ${warnings.join('; ')}`);
      return pass(`The ${where} answers and is intact`);
    } catch (error) {
      return fail(`The ${where} cannot be reached: ${(error as Error).message}`);
    }
  }
}
