import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { open, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Settings, SETTINGS } from '../../../kernel/settings/settings';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass } from '../doctor-check';

/** The data directory must exist and take a new file: the store, key file and cache live there. */
@DoctorCheck({ order: 50 })
@Injectable()
export class DataDirectoryCheck implements HealthCheck {
  readonly name = 'data_directory';

  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

  async check(): Promise<CheckOutcome> {
    const dir = this.settings.dataDir;
    try {
      if (!(await stat(dir)).isDirectory()) {
        return fail(`DATA_DIR ${dir} is not a directory; point DATA_DIR at a writable directory`);
      }
      const probe = join(dir, `.doctor-${randomBytes(6).toString('hex')}`);
      const handle = await open(probe, 'wx', 0o600);
      try {
        await handle.writeFile('ok');
        await handle.sync();
      } finally {
        await handle.close();
        await unlink(probe);
      }
      return pass(`Data directory ${dir} is writable`);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      return fail(
        `Data directory ${dir} is not writable (${code}); give the service's user write access to it (and check the disk is not read-only)`,
      );
    }
  }
}
