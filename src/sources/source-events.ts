import { Injectable } from '@nestjs/common';
import { WebhooksService } from '../webhooks';
import { sourceView } from './sources.dto';
import { SourcesService } from './sources.service';

/**
 * `source.unavailable` and `source.available` (docs/webhooks.md), with the source's view, when a
 * source's state changes on this instance (each instance reaches its upstreams itself).
 */
@Injectable()
export class SourceEvents {
  constructor(sources: SourcesService, webhooks: WebhooksService) {
    sources.onStateChange((source, change) => {
      void webhooks.publish(`source.${change}`, { source: sourceView(source) });
    });
  }
}
