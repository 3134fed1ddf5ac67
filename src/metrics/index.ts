/**
 * The metrics feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { requestCounter } from './http-metrics';
export { MetricsModule } from './metrics.module';
export { MetricsService } from './metrics.service';
export { mcpMethodLabel } from './mcp-methods';
