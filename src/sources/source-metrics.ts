import { Injectable, Optional } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { SourcesService } from './sources.service';

/**
 * `source_up{source}` on the application's registry (the one /metrics serves; none in the stdio
 * server): 1 while a source is ready, 0 otherwise, read from the sources at each scrape.
 */
@Injectable()
export class SourceMetrics {
  constructor(sources: SourcesService, @Optional() registry?: Registry) {
    new Gauge({
      name: 'source_up',
      help: 'Whether a source (docs/sources.md) is ready on this instance: 1 ready, 0 starting, unavailable or in error.',
      labelNames: ['source'],
      registers: [registry ?? new Registry()],
      collect() {
        this.reset();
        for (const source of sources.list()) {
          this.set({ source: source.definition.name }, source.state === 'ready' ? 1 : 0);
        }
      },
    });
  }
}
