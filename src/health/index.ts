/**
 * The health feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { HealthView, Liveness } from './health.dto';
export { HealthModule } from './health.module';
export { HealthService } from './health.service';
