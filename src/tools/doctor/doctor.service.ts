import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { discoverInOrder } from '../../kernel/common/discovery';
import { TimeoutError, withTimeout } from '../../kernel/common/timeout';
import { Settings, SETTINGS } from '../../kernel/settings/settings';
import type { AuditActor } from '../../audit';
import { AuditService } from '../../audit';
import type { ProgressReporter } from '../index';
import { CheckOutcome, DoctorCheck, fail, HealthCheck } from './doctor-check';

export interface CheckRecord extends CheckOutcome {
  name: string;
}

export interface DoctorReport {
  checks: CheckRecord[];
  has_failures: boolean;
}

/** Runs every discovered check, concurrently and each under a time limit, in a stable order. */
@Injectable()
export class DoctorService implements OnModuleInit {
  private readonly logger = new Logger('Doctor');
  private checks: HealthCheck[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly audit: AuditService,
  ) {}

  onModuleInit(): void {
    this.checks = discoverInOrder<HealthCheck>(this.discovery, DoctorCheck, (a, b) =>
      a.name.localeCompare(b.name),
    );
  }

  names(): string[] {
    return this.checks.map((check) => check.name);
  }

  /**
   * Runs the checks; with `fix`, repairs what is fixable, then runs them all again. `progress`
   * hears of each check as it finishes (`done` of all the runs there will be, its name).
   */
  async diagnose(
    fix: boolean,
    actor: AuditActor,
    progress: ProgressReporter = () => undefined,
  ): Promise<DoctorReport> {
    let done = 0;
    const total = () => (fix ? 2 * this.checks.length : this.checks.length);
    const finished = (check: HealthCheck) => progress(++done, total(), check.name);
    let outcomes = await this.checkAll(finished);
    if (fix) {
      const fixing = this.checks.filter(
        (check, i) => outcomes[i].fixable && outcomes[i].status !== 'pass',
      );
      if (fixing.length) {
        const problems = fixing.map((check) => ({
          check: check.name,
          problem: outcomes[this.checks.indexOf(check)].message,
        }));
        await Promise.all(fixing.map((check) => this.fixOne(check)));
        outcomes = await this.checkAll(finished);
        const fixed = problems.map((p) => ({
          ...p,
          status: outcomes[this.checks.findIndex((c) => c.name === p.check)].status,
        }));
        await this.audit.record(actor, 'doctor.fix', 'doctor', { fixed });
      }
    }
    const checks = this.checks.map((check, i) => ({ name: check.name, ...outcomes[i] }));
    return { checks, has_failures: checks.some((c) => c.status === 'fail') };
  }

  private checkAll(finished: (check: HealthCheck) => void): Promise<CheckOutcome[]> {
    return Promise.all(
      this.checks.map(async (check) => {
        const outcome = await this.runOne(check);
        finished(check);
        return outcome;
      }),
    );
  }

  private async runOne(check: HealthCheck): Promise<CheckOutcome> {
    const ms = this.settings.doctor.checkTimeoutMs;
    try {
      return await withTimeout(() => check.check(), ms, `${check.name} timed out`);
    } catch (error) {
      if (error instanceof TimeoutError) {
        return fail(`The check did not finish within ${ms} ms; whatever it inspects is hanging.`);
      }
      this.logger.error({ err: error }, `Doctor check ${check.name} failed`);
      return fail(`The check itself failed: ${(error as Error).message}`);
    }
  }

  private async fixOne(check: HealthCheck): Promise<void> {
    try {
      const ms = this.settings.doctor.checkTimeoutMs;
      await withTimeout(() => check.fix!(), ms, `fixing ${check.name} timed out`);
    } catch (error) {
      this.logger.warn({ err: error }, `Doctor fix of ${check.name} failed`);
    }
  }
}
