/**
 * The runs feature's public entry: what the other features, the transports and the processes may
 * use of it. Nothing else of this folder is imported from outside it.
 */
export { CreatedRun, CreateRunInput, RunMe, RunPage, RunView, UpdateRunInput } from './runs.dto';
export { RunsModule, RunsUpkeepModule } from './runs.module';
export { MAX_ACTIVE_RUNS, RUN_ENDED, RUN_NOT_FOUND, RunsService } from './runs.service';
export type { RunAccess } from './runs.service';
export { RunStore } from './run.store';
export type { RunStatus } from './run.store';
