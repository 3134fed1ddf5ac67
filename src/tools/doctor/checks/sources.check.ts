import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { plural } from '../../../kernel/common/text';
import { SourcesService } from '../../../sources';
import { CheckOutcome, DoctorCheck, HealthCheck, pass, warn } from '../doctor-check';

/**
 * The process's SourcesService: mounted by the server and the stdio MCP server, not by the CLI
 * (it would start upstreams), where there is none.
 */
export function runningSources(modules: ModuleRef): SourcesService | undefined {
  try {
    return modules.get(SourcesService, { strict: false });
  } catch {
    return undefined;
  }
}

/**
 * The sources of this instance (docs/sources.md): a warning naming each one that is not ready,
 * with its last error; their calls answer 503 meanwhile. An upstream that fails is a warning, not a
 * failure: the service itself is sound. The CLI runs no source: there the check says so.
 */
@DoctorCheck({ order: 87.5 })
@Injectable()
export class SourcesCheck implements HealthCheck, OnModuleInit {
  readonly name = 'sources';
  private sources?: SourcesService;

  constructor(private readonly modules: ModuleRef) {}

  onModuleInit(): void {
    this.sources = runningSources(this.modules);
  }

  check(): Promise<CheckOutcome> {
    if (!this.sources) return Promise.resolve(pass('No sources run in this process'));
    const all = this.sources.list();
    if (all.length === 0) return Promise.resolve(pass('No sources'));
    const problems = all
      .filter((source) => source.state !== 'ready')
      .sort((a, b) => (a.definition.name < b.definition.name ? -1 : 1))
      .map(
        ({ definition, state, lastError }) =>
          `${definition.name} is ${state}${lastError ? ` (${lastError.slice(0, 300)})` : ''}`,
      );
    if (problems.length === 0)
      return Promise.resolve(pass(`${plural(all.length, 'source')}, all ready`));
    return Promise.resolve(
      warn(
        `${problems.join('; ')}; their tools answer 503 until they answer (GET /api/v1/sources/<name>, POST …/refresh)`,
      ),
    );
  }
}
