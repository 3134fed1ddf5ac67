import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { ApiError } from '../kernel/errors/api-error';
import {
  ENVIRONMENT,
  type Environment,
  SETTINGS,
  type Settings,
} from '../kernel/settings/settings';
import { SettingsError } from '../kernel/settings/settings.error';
import { ToolRegistry } from '../tools/index';
import { WEBHOOK_RESOLVER, type Resolver } from '../webhooks';
import { concurrencyLimit } from './concurrency';
import { SourceDefinition, sourcesFromFile } from './source-config';
import { redacted } from './source-secrets';
import { sourceTools, type SourceTool } from './source-tools';
import { checkSourceUrl, sourceUrlRefusal, tokenUrlOf } from './source-urls';
import { UPSTREAM_KINDS } from './upstreams/upstream-kinds';
import { UpstreamError, type Upstream } from './upstreams/upstream';

export type SourceStatus = 'starting' | 'ready' | 'unavailable' | 'error';

/** A source as an instance runs it. */
export interface RunningSource {
  definition: SourceDefinition;
  upstream?: Upstream;
  state: SourceStatus;
  lastError: string | null;
  refreshedAt: string | null;
  tools: SourceTool[];
  failures: number;
  timer?: NodeJS.Timeout;
  /** A refresh under way: another asked for meanwhile waits for it. */
  refreshing?: Promise<void>;
  limit: <T>(run: () => Promise<T>) => Promise<T>;
}

/** How long the start waits for a source's first tool list before going on without it. */
const FIRST_LIST_WAIT_MS = 10_000;
/** Retries of an unavailable source: 1 s, doubling, at most 60 s. */
const RETRY_MS = 1000;
const MAX_RETRY_MS = 60_000;

/** Who hears of a source's change of state (the metrics, the webhook events). */
export type SourceListener = (source: RunningSource, change: 'available' | 'unavailable') => void;

/**
 * The sources of this instance: CONFIG_FILE's, read at start-up (a missing variable, a refused URL
 * stop the start), each source's upstream connected and its tools listed into the ToolRegistry,
 * where every surface finds them. Listed again when the upstream says its tools changed, every
 * `refresh_seconds`, and with a backoff while it is unavailable.
 */
@Injectable()
export class SourcesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Sources');
  private readonly sources = new Map<string, RunningSource>();
  private readonly listeners: SourceListener[] = [];
  private stopped = false;
  /** Set once the start-up's first lists began: a source put after is listed at once. */
  private started = false;

  constructor(
    private readonly registry: ToolRegistry,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(ENVIRONMENT) private readonly env: Environment,
    @Inject(WEBHOOK_RESOLVER) private readonly resolver: Resolver,
  ) {
    for (const definition of sourcesFromFile(settings.configDocument, env)) {
      const urls = [
        definition.url,
        definition.baseUrl,
        urlOf(definition.document),
        tokenUrlOf(definition.auth),
      ];
      for (const url of urls) {
        const refusal = url && sourceUrlRefusal(url, settings.sources.allowPrivate);
        if (refusal)
          throw new SettingsError(`Invalid CONFIG_FILE: sources.${definition.name}: ${refusal}`);
      }
      this.sources.set(definition.name, this.running(definition));
    }
  }

  onStateChange(listener: SourceListener): void {
    this.listeners.push(listener);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.started = true;
    await Promise.all(
      [...this.sources.values()].map((source) => {
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, FIRST_LIST_WAIT_MS);
        });
        return Promise.race([this.refresh(source.definition.name), waited]).finally(() =>
          clearTimeout(timer),
        );
      }),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.sources.values()].map((source) => this.stop(source)));
  }

  list(): RunningSource[] {
    return [...this.sources.values()];
  }

  get(name: string): RunningSource | undefined {
    return this.sources.get(name);
  }

  /**
   * A source made through the API, new or changed (src/sources/api-sources.service.ts): in place of
   * the one of that name, if any (its tools leave the registry at once), listed now (after the
   * start-up, or with it). A source whose record cannot be used is put in `error`, with why.
   */
  put(definition: SourceDefinition, error?: string): RunningSource {
    const before = this.sources.get(definition.name);
    const source = this.running(definition);
    this.sources.set(definition.name, source);
    if (before) void this.stop(before);
    if (error !== undefined) {
      source.state = 'error';
      source.lastError = error;
    } else if (this.started) {
      void this.refresh(definition.name);
    }
    return source;
  }

  /** Removes a source: its tools leave the registry at once, its upstream is closed. */
  async remove(name: string): Promise<void> {
    const source = this.sources.get(name);
    if (!source) return;
    this.sources.delete(name);
    await this.stop(source);
  }

  /** The source's tools listed again (now, or once the refresh under way ends). */
  refresh(name: string): Promise<void> {
    const source = this.sources.get(name);
    if (!source) return Promise.resolve();
    source.refreshing ??= this.list_(source).finally(() => (source.refreshing = undefined));
    return source.refreshing;
  }

  /** A 503 for a source that cannot be reached now; its state becomes `unavailable`. */
  unavailable(source: RunningSource, error?: UpstreamError): ApiError {
    if (error && source.state === 'ready') this.markUnavailable(source, error.message);
    const seconds = error?.retryAfterSeconds ?? this.retryAfterSeconds(source);
    return new ApiError(
      503,
      `Source ${source.definition.name} is unavailable. Retry after ${seconds} second${seconds === 1 ? '' : 's'}.`,
      { 'Retry-After': seconds },
    );
  }

  private retryAfterSeconds(source: RunningSource): number {
    return Math.max(1, Math.ceil(this.retryDelay(source) / 1000));
  }

  private running(definition: SourceDefinition): RunningSource {
    return {
      definition,
      state: 'starting',
      lastError: null,
      refreshedAt: null,
      tools: [],
      failures: 0,
      limit: concurrencyLimit(definition.maxConcurrency),
    };
  }

  private upstreamOf(source: RunningSource): Upstream {
    if (source.upstream) return source.upstream;
    const make = UPSTREAM_KINDS[source.definition.kind];
    if (!make)
      throw new UpstreamError(
        'protocol',
        `Source kind ${source.definition.kind} is not available.`,
      );
    const allowPrivate = this.settings.sources.allowPrivate;
    const upstream = make(source.definition, {
      maxResultBytes: this.settings.sources.maxResultBytes,
      checkUrl: (url) => checkSourceUrl(url.href, allowPrivate, this.resolver),
      refuseUrl: (url) => {
        const refusal = sourceUrlRefusal(url.href, allowPrivate);
        if (refusal) throw new UpstreamError('unavailable', refusal);
      },
    });
    upstream.onToolsChanged?.(() => void this.refresh(source.definition.name));
    source.upstream = upstream;
    return upstream;
  }

  /** Lists the upstream's tools and puts them in the registry in place of the source's old ones. */
  private async list_(source: RunningSource): Promise<void> {
    if (this.stopped) return;
    const name = source.definition.name;
    clearTimeout(source.timer);
    try {
      const listed = await this.upstreamOf(source).listTools();
      if (this.sources.get(name) !== source || this.stopped) return;
      this.unregister(source);
      const { tools, omitted } = sourceTools(
        source.definition,
        listed.tools,
        (tool) => this.registry.isTaken(tool),
        {
          upstream: () => (source.state === 'ready' ? source.upstream : undefined),
          unavailable: (error) => this.unavailable(source, error),
          maxConcurrency: () => source.limit,
        },
      );
      for (const { tool } of tools) this.registry.register(tool);
      source.tools = tools;
      const left = [...listed.omitted, ...omitted];
      source.lastError = left.length
        ? `Left out: ${left.map(({ name: tool, reason }) => `${tool} (${reason})`).join('; ')}`.slice(
            0,
            2000,
          )
        : null;
      source.refreshedAt = new Date().toISOString();
      source.failures = 0;
      const was = source.state;
      source.state = 'ready';
      if (was !== 'ready') this.tell(source, 'available');
      this.schedule(source, source.definition.refreshSeconds * 1000);
    } catch (error) {
      const said = error instanceof Error ? error.message : String(error);
      const message = redacted(source.definition, said);
      // A source replaced or removed meanwhile (put, remove) is nobody's concern any more.
      if (this.sources.get(name) !== source || this.stopped) return;
      this.logger.warn(`Source ${name} could not be listed: ${message}`);
      this.markUnavailable(source, message);
    }
  }

  private markUnavailable(source: RunningSource, message: string): void {
    const was = source.state;
    source.state = 'unavailable';
    source.lastError = redacted(source.definition, message).slice(0, 2000);
    source.failures++;
    if (was !== 'unavailable') this.tell(source, 'unavailable');
    this.schedule(source, this.retryDelay(source));
  }

  private retryDelay(source: RunningSource): number {
    return Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** Math.max(0, source.failures - 1));
  }

  private schedule(source: RunningSource, ms: number): void {
    clearTimeout(source.timer);
    if (ms <= 0 || this.stopped) return;
    source.timer = setTimeout(() => void this.refresh(source.definition.name), ms);
    source.timer.unref();
  }

  private tell(source: RunningSource, change: 'available' | 'unavailable'): void {
    for (const listener of this.listeners) listener(source, change);
  }

  private unregister(source: RunningSource): void {
    for (const { tool } of source.tools) this.registry.unregister(tool.name);
    source.tools = [];
  }

  private async stop(source: RunningSource): Promise<void> {
    clearTimeout(source.timer);
    this.unregister(source);
    await source.upstream?.close().catch(() => undefined);
  }
}

/** A document that is a URL (not a file path). */
function urlOf(document: string | undefined): string | undefined {
  return document && /^https?:\/\//i.test(document) ? document : undefined;
}
