import { Inject, Injectable } from '@nestjs/common';
import { statfs } from 'node:fs/promises';
import { Settings, SETTINGS } from '../../../kernel/settings/settings';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass, warn } from '../doctor-check';

const MB = 1024 * 1024;

function human(bytes: number): string {
  return bytes >= 1024 * MB
    ? `${(bytes / (1024 * MB)).toFixed(1)} GiB`
    : `${Math.floor(bytes / MB)} MiB`;
}

/** Free space where the store writes: below the operator's thresholds, warn, then fail. */
@DoctorCheck({ order: 90 })
@Injectable()
export class DiskSpaceCheck implements HealthCheck {
  readonly name = 'disk_space';

  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

  async check(): Promise<CheckOutcome> {
    const dir = this.settings.dataDir;
    const fs = await statfs(dir);
    const free = fs.bavail * fs.bsize;
    const { diskWarnMb, diskFailMb } = this.settings.doctor;
    const text = `${human(free)} free on the file system of ${dir}`;
    if (free < diskFailMb * MB)
      return fail(`Only ${text} (below ${diskFailMb} MiB); free space now`);
    if (free < diskWarnMb * MB)
      return warn(`Only ${text} (below ${diskWarnMb} MiB); free some space soon`);
    return pass(text);
  }
}
