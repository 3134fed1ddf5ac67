import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { Clock } from '../kernel/common/clock';
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
  private timer?: NodeJS.Timeout;
  private purging?: Promise<void>;
  private stopping = false;

  constructor(
    private readonly store: LedgerStore,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    this.timer.unref();
    void this.purge();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.purging;
  }

  /** Forgets the entries older than the retention, a slice at a time; how many. */
  purge(): Promise<void> {
    this.purging ??= this.purgeSlices()
      .then(
        (purged) => void (purged && this.logger.log(`Forgot ${purged} ledger entries`)),
        (error: unknown) => this.logger.warn({ err: error }, 'Could not purge the ledger'),
      )
      .finally(() => (this.purging = undefined));
    return this.purging;
  }

  private async purgeSlices(): Promise<number> {
    const before = this.clock.nowMs() - this.settings.ledgerRetentionDays * 86_400_000;
    let purged = 0;
    while (!this.stopping) {
      const slice = await this.store.purge(before, PURGE_SLICE);
      purged += slice;
      if (slice < PURGE_SLICE) break;
      await yieldToOthers();
    }
    return purged;
  }
}
