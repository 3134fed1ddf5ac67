import { Injectable } from '@nestjs/common';
import { ApiError } from '../kernel/errors/api-error';
import { SourcesService } from './sources.service';
import { type PassedMethod, UpstreamError, type UpstreamExtras } from './upstreams/upstream';

/**
 * What a source's upstream serves beside its tools (an MCP server's resources, prompts and
 * completions), for the source's own endpoint to pass on: reads, never charged, within the
 * source's concurrency limit.
 */
@Injectable()
export class SourceExtras {
  constructor(private readonly sources: SourcesService) {}

  /** What a ready source's upstream serves beside its tools; undefined while it is not ready. */
  servedBy(name: string): UpstreamExtras | undefined {
    const source = this.sources.get(name);
    return source?.state === 'ready' ? source.upstream?.extras?.() : undefined;
  }

  /**
   * A request of PASSED_METHODS sent to a ready source's upstream; a source that cannot be reached
   * is the 503 of an unavailable source, an upstream's bad answer a 502 with its detail (as a
   * tool's call answers them).
   */
  async forward(
    name: string,
    method: PassedMethod,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const source = this.sources.get(name);
    if (!source) throw new ApiError(404, 'Source not found');
    const upstream = source.state === 'ready' ? source.upstream : undefined;
    if (!upstream?.forward) throw this.sources.unavailable(source);
    const passed = upstream;
    try {
      return await source.limit(() => passed.forward!(method, params, signal));
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      if (error.reason === 'unavailable') throw this.sources.unavailable(source, error);
      throw new ApiError(502, error.message);
    }
  }
}
