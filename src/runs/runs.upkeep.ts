import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RunsService } from './runs.service';

/** How often ended runs past their 30 days are forgotten. */
const PURGE_EVERY_MS = 3_600_000;

/** The hourly purge of ended runs, in the server only (the CLI and stdio start none). */
@Injectable()
export class RunsUpkeep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Runs');
  private timer?: NodeJS.Timeout;
  private purging?: Promise<void>;

  constructor(private readonly runs: RunsService) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.purge(), PURGE_EVERY_MS);
    this.timer.unref();
    this.purge();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.purging;
  }

  private purge(): void {
    if (this.purging) return;
    this.purging = this.runs
      .purge()
      .then(
        (purged) => void (purged && this.logger.log(`Forgot ${purged} ended runs`)),
        (error: unknown) => this.logger.warn({ err: error }, 'Could not purge ended runs'),
      )
      .finally(() => (this.purging = undefined));
  }
}
