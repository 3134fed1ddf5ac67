import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { MetricsService } from './metrics.service';

/** A registry of this application's own, with the process metrics (CPU, memory, event loop, GC). */
function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Prometheus metrics at /metrics; global so that any transport (HTTP, MCP) can count tool calls. */
@Global()
@Module({
  providers: [{ provide: Registry, useFactory: createRegistry }, MetricsService],
  exports: [MetricsService, Registry],
})
export class MetricsModule implements OnApplicationShutdown {
  constructor(@Inject(Registry) private readonly registry: Registry) {}

  onApplicationShutdown(): void {
    this.registry.clear();
  }
}
