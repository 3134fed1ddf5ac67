/**
 * The sources feature's public entry: what the other features, the transports and the processes
 * may use of it. Nothing else of this folder is imported from outside it.
 */
export { SourcesModule } from './sources.module';
export { SourcesService } from './sources.service';
export { SourceExtras } from './source-extras';
export { ApiSourcesService, SOURCE_NOT_FOUND } from './api-sources.service';
export type { RunningSource, SourceStatus } from './sources.service';
export { SOURCE_NAME, MAX_SOURCES, sourcesFromFile } from './source-config';
export type { SourceDefinition } from './source-config';
export { PASSED_METHODS } from './upstreams/upstream';
export type { PassedMethod, UpstreamExtras } from './upstreams/upstream';
export { SourceList, SourceToolView, SourceView, sourceView } from './sources.dto';
export { CreateSourceInput, SOURCE_INPUT_MODELS, UpdateSourceInput } from './sources-input.dto';
