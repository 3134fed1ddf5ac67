import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits';
import { OAuthModule } from '../oauth';
import { SubjectsModule } from '../subjects';
import { WebhooksModule } from '../webhooks';
import { RUN_STORES } from './runs.stores';
import { RunsService } from './runs.service';
import { RunsUpkeep } from './runs.upkeep';

/** Runs: their records and tokens (every process that authenticates calls). */
@Module({
  imports: [SubjectsModule, OAuthModule, LimitsModule, WebhooksModule],
  providers: [...RUN_STORES, RunsService],
  exports: [RunsService, ...RUN_STORES],
})
export class RunsModule {}

/** The hourly purge of ended runs: the server's only. */
@Module({ imports: [RunsModule], providers: [RunsUpkeep] })
export class RunsUpkeepModule {}
