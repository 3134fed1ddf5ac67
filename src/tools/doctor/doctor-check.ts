import { DiscoveryService } from '@nestjs/core';

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface CheckOutcome {
  status: CheckStatus;
  message: string;
  /** True when `fix()` can repair this outcome. */
  fixable?: boolean;
  /**
   * When what it reports was found (RFC 3339), for a check that answers its last result between
   * runs (the ledger's).
   */
  checked_at?: string;
}

/**
 * One health check of the running service. `check()` only looks; `fix()`, when there is one, repairs
 * what `check()` reported as fixable and nothing else.
 */
export interface HealthCheck {
  readonly name: string;
  check(): Promise<CheckOutcome>;
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
