import { Injectable } from '@nestjs/common';
import { CallCheck, type Call } from '../invocations';
import { ToolRegistry } from '../tools/index';
import { SourcesService } from './sources.service';

/**
 * A call of a source's tool while its source is not ready is 503 with Retry-After, before
 * anything is taken or charged (CallChecks, step 3).
 */
@Injectable()
@CallCheck()
export class SourceReadyCheck {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly sources: SourcesService,
  ) {}

  check(call: Call): void {
    if (call.tool === undefined) return;
    const name = this.registry.get(call.tool)?.source;
    if (name === undefined) return;
    const source = this.sources.get(name);
    if (source && source.state !== 'ready') throw this.sources.unavailable(source);
  }
}
