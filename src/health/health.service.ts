import { BeforeApplicationShutdown, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { withTimeout } from '../kernel/common/timeout';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { Store, StoreTopology } from '../kernel/store/store';
import { SourcesService } from '../sources';
import type { ComponentStatus, HealthView, RedisHealth, SourcesHealth } from './health.dto';

/** A check that takes longer than this counts as failed: a probe must answer, even about a hung store. */
const CHECK_TIMEOUT_MS = 2000;

/**
 * The service's health as a load balancer or an operator sees it: the store answers a ping and a
 * read, Redis (when configured) answers, and the service is not stopping. A probe costs the same
 * with ten keys or a million: the full integrity check is doctor's. The sources' states are shown
 * beside (`components.sources`) and never make the answer 503: an upstream that fails is not this
 * instance failing, and a load balancer taking every instance out for it would stop every other
 * tool too (docs/decisions.md).
 */
@Injectable()
export class HealthService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Health');
  private stopping = false;
  private lastStoreStatus: ComponentStatus = 'ok';

  constructor(
    private readonly store: Store,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Optional() private readonly sources?: SourcesService,
  ) {}

  async check(now = new Date()): Promise<HealthView> {
    const { status: store, topology } = await this.storeStatus();
    const redis = this.redisHealth(store, topology);
    const healthy = !this.stopping && store === 'ok' && redis.status !== 'error';
    return {
      status: healthy ? 'ok' : 'degraded',
      version: this.settings.version,
      timestamp: now.toISOString(),
      components: {
        store: { status: store },
        redis,
        ...(this.sources ? { sources: this.sourcesHealth(this.sources) } : {}),
      },
    };
  }

  /** Each source's state and tools now; `degraded` while one is not ready. */
  private sourcesHealth(running: SourcesService): SourcesHealth {
    const sources: SourcesHealth['sources'] = {};
    let ready = true;
    for (const source of running
      .list()
      .sort((a, b) => (a.definition.name < b.definition.name ? -1 : 1))) {
      sources[source.definition.name] = { state: source.state, tools: source.tools.length };
      ready &&= source.state === 'ready';
    }
    return { status: ready ? 'ok' : 'degraded', sources };
  }

  /** Redis holds the shared state when configured, so its health is the store's, with the topology the probe saw. */
  private redisHealth(store: ComponentStatus, topology: StoreTopology | undefined): RedisHealth {
    const redis = this.settings.redis;
    if (!redis) return { status: 'not_configured' };
    // A configured Redis that the store does not use would be a misconfiguration, not health.
    const status = this.store.kind === 'redis' ? store : 'error';
    return { status, mode: redis.mode, nodes: status === 'ok' ? (topology?.nodes ?? 0) : 0 };
  }

  private async storeStatus(): Promise<{ status: ComponentStatus; topology?: StoreTopology }> {
    let problem: string | undefined;
    let topology: StoreTopology | undefined;
    try {
      topology = await withTimeout(
        () => this.store.probe(),
        CHECK_TIMEOUT_MS,
        `The store did not answer within ${CHECK_TIMEOUT_MS} ms`,
      );
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    const status: ComponentStatus = problem === undefined ? 'ok' : 'error';
    this.logTransition(status, problem);
    return { status, topology };
  }

  /** One line when the store turns bad or recovers, not one per probe. */
  private logTransition(status: ComponentStatus, problem: string | undefined): void {
    if (status === this.lastStoreStatus) return;
    this.lastStoreStatus = status;
    if (status === 'error') this.logger.error(`Store unhealthy: ${problem}`);
    else this.logger.log('Store healthy again');
  }

  /** From the shutdown signal on, probes answer 503 so a load balancer stops sending new requests. */
  beforeApplicationShutdown(signal?: string): void {
    this.stopping = true;
    if (signal) this.logger.log(`${signal}: finishing in-flight requests, then closing the store`);
  }
}
