import { Injectable } from '@nestjs/common';
import { Store } from '../../../store/store';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass, warn } from '../doctor-check';

/**
 * The store answers and its own integrity check finds nothing (SQLite quick_check, Redis key index);
 * settings that risk data (Redis without AOF) are a warning.
 */
@DoctorCheck({ order: 60 })
@Injectable()
export class StoreCheck implements HealthCheck {
  readonly name = 'store';

  constructor(private readonly store: Store) {}

  async run(): Promise<CheckOutcome> {
    const where = `${this.store.kind} store ${this.store.describe()}`;
    try {
      await this.store.ping();
      const problems = await this.store.checkIntegrity();
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
