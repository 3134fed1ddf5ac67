import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { Clock } from '../kernel/common/clock';
import { Periodic } from '../kernel/common/periodic';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { LedgerStore } from './ledger.store';

/** How often entries past LEDGER_RETENTION_DAYS are forgotten. */
const PURGE_EVERY_MS = 3_600_000;
/** Entries forgotten in one step of the store; requests are served between steps. */
const PURGE_SLICE = 1000;

/** The hourly purge of the ledger, in the server only (the CLI and stdio start none). */
@Injectable()
export class LedgerUpkeep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Ledger');
  private readonly purging = new Periodic({
    everyMs: PURGE_EVERY_MS,
    work: async () => {
      const purged = await this.purgeSlices();
      if (purged) this.logger.log(`Forgot ${purged} ledger entries`);
    },
    onError: (error) => this.logger.warn({ err: error }, 'Could not purge the ledger'),
  });

  constructor(
    private readonly store: LedgerStore,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    this.purging.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.purging.stop();
  }

  /** Forgets the entries older than the retention now, a slice at a time (the pass under way, if one is). */
  purge(): Promise<void> {
    return this.purging.runNow();
  }

  private async purgeSlices(): Promise<number> {
    const before = this.clock.nowMs() - this.settings.ledgerRetentionDays * 86_400_000;
    let purged = 0;
    while (!this.purging.stopping) {
      const slice = await this.store.purge(before, PURGE_SLICE);
      purged += slice;
      if (slice < PURGE_SLICE) break;
      await yieldToOthers();
    }
    return purged;
  }
}
