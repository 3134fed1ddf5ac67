import { Injectable } from '@nestjs/common';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass } from '../doctor-check';

/**
 * The oldest Node.js release this service supports: package.json's `engines.node` and
 * scripts/node-versions' NODE_MINIMUM (the spec holds the three together).
 */
export const MIN_NODE = [22, 15, 0] as const;

export function satisfiesMinimum(version: string, minimum: readonly number[] = MIN_NODE): boolean {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < minimum.length; i++) {
    if ((parts[i] ?? 0) !== minimum[i]) return (parts[i] ?? 0) > minimum[i];
  }
  return true;
}

export function runtimeOutcome(version: string): CheckOutcome {
  const minimum = MIN_NODE.join('.');
  return satisfiesMinimum(version)
    ? pass(`Node.js ${version} (needs ${minimum} or later)`)
    : fail(`Node.js ${version} is older than ${minimum}; upgrade Node.js to ${minimum} or later`);
}

@DoctorCheck({ order: 10 })
@Injectable()
export class RuntimeVersionCheck implements HealthCheck {
  readonly name = 'runtime_version';

  check(): Promise<CheckOutcome> {
    return Promise.resolve(runtimeOutcome(process.versions.node));
  }
}
