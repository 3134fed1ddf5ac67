import { DiscoveryService } from '@nestjs/core';

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface CheckOutcome {
  status: CheckStatus;
  message: string;
  /** True when `fix()` can repair this outcome. */
  fixable?: boolean;
}

/**
 * One health check of the running service. `run()` only looks; `fix()`, when there is one, repairs
 * what `run()` reported as fixable and nothing else.
 */
export interface HealthCheck {
  readonly name: string;
  run(): Promise<CheckOutcome>;
  fix?(): Promise<void>;
}

/**
 * Marks a provider as a doctor check; `order` fixes its place in the answer (then the name).
 * A module adds a check by declaring such a provider: DoctorService finds it through discovery.
 */
export const DoctorCheck = DiscoveryService.createDecorator<{ order: number }>();

export const pass = (message: string): CheckOutcome => ({ status: 'pass', message });
export const warn = (message: string, fixable = false): CheckOutcome => ({
  status: 'warn',
  message,
  ...(fixable ? { fixable } : {}),
});
export const fail = (message: string, fixable = false): CheckOutcome => ({
  status: 'fail',
  message,
  ...(fixable ? { fixable } : {}),
});
