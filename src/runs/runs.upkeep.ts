import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Periodic } from '../kernel/common/periodic';
import { RunsService } from './runs.service';

/** How often ended runs past their 30 days are forgotten. */
const PURGE_EVERY_MS = 3_600_000;

/** The hourly purge of ended runs, in the server only (the CLI and stdio start none). */
@Injectable()
export class RunsUpkeep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Runs');
  private readonly purge = new Periodic({
    everyMs: PURGE_EVERY_MS,
    work: async () => {
      const purged = await this.runs.purge();
      if (purged) this.logger.log(`Forgot ${purged} ended runs`);
    },
    onError: (error) => this.logger.warn({ err: error }, 'Could not purge ended runs'),
  });

  constructor(private readonly runs: RunsService) {}

  onApplicationBootstrap(): void {
    this.purge.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.purge.stop();
  }
}
