import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { privateDir, writePrivateFile } from '../kernel/common/private-files';
import { join } from 'node:path';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { KeysService } from './keys.service';

export const INITIAL_KEY_FILE = 'initial-api-key';

/**
 * On the server's first start against an empty store, creates an admin key and writes it to
 * `<DATA_DIR>/initial-api-key` (mode 0600). The log names the file, never the key.
 */
@Injectable()
export class InitialKeyBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('InitialKey');

  constructor(
    private readonly keys: KeysService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const created = await this.keys.createInitial();
    if (!created) return;
    const file = join(this.settings.dataDir, INITIAL_KEY_FILE);
    // With Redis no store creates DATA_DIR, yet the key file goes there.
    privateDir(this.settings.dataDir);
    writePrivateFile(file, `${created.key}\n`);
    this.logger.warn(
      `No API key existed: created admin key ${created.record.id} (${created.record.prefix}...). Its text is in ${file}; store it safely and delete the file.`,
    );
  }
}
