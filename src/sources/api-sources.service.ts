import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { AuditService, type AuditActor } from '../audit';
import { Clock } from '../kernel/common/clock';
import { Periodic } from '../kernel/common/periodic';
import { SecretBox } from '../kernel/common/secret-box';
import { ApiError } from '../kernel/errors/api-error';
import { SETTINGS, type Settings } from '../kernel/settings/settings';
import { eventActor, WEBHOOK_RESOLVER, WebhooksService, type Resolver } from '../webhooks';
import {
  MAX_SOURCES,
  SourceDefinition,
  sourceDefinition,
  SourceFields,
  SourceFieldsInput,
  SourceInvalid,
} from './source-config';
import { createInput, patchedFields } from './source-input';
import { joinSecrets, redacted, splitSecrets } from './source-secrets';
import { SourceRecord, SourceStore, StoredSource } from './source.store';
import { checkSourceUrl, sourceUrlRefusal, tokenUrlOf } from './source-urls';
import { sourceView, type SourceView } from './sources.dto';
import { SourcesService } from './sources.service';

/** How often an instance looks for other instances' changes (one read of the store's revision). */
export const SOURCE_SYNC_MS = 1000;

/** An API source this instance runs: its record's version, and its fields, secrets included. */
interface Known {
  version: number;
  fields: SourceFieldsInput;
  createdAt: string;
}

export const SOURCE_NOT_FOUND = 'Source not found';

/**
 * Sources made through `/api/v1/sources` (docs/sources.md): checked (what the API may create, the
 * URL rules), kept in the store with their secrets sealed, audited, sent as webhook events, and
 * run by the SourcesService beside CONFIG_FILE's. Every instance runs every stored source: it
 * reads the store's revision each SOURCE_SYNC_MS and before each answer of the API, and puts in,
 * replaces or removes what changed. Changes, here and from the store, are made one at a time.
 */
@Injectable()
export class ApiSourcesService
  implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown
{
  private readonly logger = new Logger('Sources');
  private readonly box: SecretBox;
  private readonly known = new Map<string, Known>();
  private revision = -1;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly sync = new Periodic({
    everyMs: SOURCE_SYNC_MS,
    work: () => this.catchUp(),
    onError: (error) => this.logger.warn({ err: error }, 'Sources not read from the store'),
    atStart: false,
  });

  constructor(
    private readonly sources: SourcesService,
    private readonly store: SourceStore,
    private readonly audit: AuditService,
    private readonly webhooks: WebhooksService,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(WEBHOOK_RESOLVER) private readonly resolver: Resolver,
  ) {
    this.box = new SecretBox(settings.sources.secretKey, 'source secrets');
  }

  /** The stored sources, put in before the start-up lists every source. */
  async onModuleInit(): Promise<void> {
    await this.catchUp();
  }

  onApplicationBootstrap(): void {
    this.sync.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sync.stop();
  }

  /** Every instance's changes up to now, applied here (before the API answers from this one). */
  catchUp(): Promise<void> {
    return this.exclusive(() => this.apply());
  }

  async create(body: unknown, actor: AuditActor): Promise<SourceView> {
    const { name, fields } = createInput(body);
    return this.exclusive(async () => {
      await this.apply();
      if (this.sources.get(name)?.definition.origin === 'config') throw inConfigFile(name);
      const definition = await this.checked(name, fields);
      const now = this.clock.now().toISOString();
      const room = MAX_SOURCES - this.sources.list().filter(isConfig).length;
      const outcome = await this.store.create(this.record(name, fields, now, now), room);
      if (outcome === 'taken') throw new ApiError(409, `A source named ${name} exists.`);
      if (outcome === 'full') {
        throw new ApiError(409, `At most ${MAX_SOURCES} sources: delete one first.`);
      }
      this.known.set(name, { version: outcome, fields, createdAt: now });
      const view = sourceView(this.sources.put(definition));
      await this.audit.record(actor, 'source.created', name, {
        kind: view.kind,
        ...(view.url ? { url: view.url } : {}),
        prefix: view.prefix,
      });
      await this.webhooks.publish('source.created', { source: view, actor: eventActor(actor) });
      return view;
    });
  }

  async update(name: string, body: unknown, actor: AuditActor): Promise<SourceView> {
    return this.exclusive(async () => {
      await this.apply();
      const known = this.found(name);
      const { fields, changed } = patchedFields(known.fields, body);
      if (changed.length === 0) return sourceView(this.sources.get(name)!);
      const definition = await this.checked(name, fields);
      const now = this.clock.now().toISOString();
      const version = await this.store.update(this.record(name, fields, known.createdAt, now));
      if (version === undefined) {
        await this.forget(name);
        throw new ApiError(404, SOURCE_NOT_FOUND);
      }
      this.known.set(name, { ...known, version, fields });
      const view = sourceView(this.sources.put(definition));
      await this.audit.record(actor, 'source.updated', name, { changes: changed });
      await this.webhooks.publish('source.updated', {
        source: view,
        actor: eventActor(actor),
        changes: changed,
      });
      return view;
    });
  }

  async remove(name: string, actor: AuditActor): Promise<void> {
    return this.exclusive(async () => {
      await this.apply();
      this.found(name);
      const view = sourceView(this.sources.get(name)!);
      await this.store.remove(name);
      await this.forget(name);
      await this.audit.record(actor, 'source.deleted', name, {});
      await this.webhooks.publish('source.deleted', { source: view, actor: eventActor(actor) });
    });
  }

  /** An API source of this name (a 404 when there is none, a 409 for CONFIG_FILE's). */
  private found(name: string): Known {
    const running = this.sources.get(name);
    if (running?.definition.origin === 'config') throw inConfigFile(name);
    const known = this.known.get(name);
    if (!running || !known) throw new ApiError(404, SOURCE_NOT_FOUND);
    return known;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const done = this.queue.then(work, work);
    this.queue = done.catch(() => undefined);
    return done;
  }

  /** Puts in, replaces and removes what the store's revision says changed since the last look. */
  private async apply(): Promise<void> {
    const revision = await this.store.revision();
    if (revision === this.revision) return;
    const stored = await this.store.list();
    for (const record of stored) {
      if (this.known.get(record.name)?.version !== record.version) this.run(record);
    }
    const names = new Set(stored.map(({ name }) => name));
    for (const name of [...this.known.keys()]) if (!names.has(name)) await this.forget(name);
    this.revision = revision;
  }

  /** A stored source run here: in `error`, saying why, when its record cannot be used. */
  private run(record: StoredSource): void {
    const { name } = record;
    if (this.sources.get(name)?.definition.origin === 'config') {
      this.logger.warn(`Source ${name} of the store is not run: CONFIG_FILE defines one so named`);
      return;
    }
    let fields: SourceFieldsInput;
    try {
      const secrets = record.sealed === null ? null : this.box.open(record.sealed);
      fields = SourceFields.parse(joinSecrets(record.fields, secrets));
    } catch (error) {
      const reason = /SECRETS_KEY/.test(String(error))
        ? 'Its credentials are sealed: SECRETS_KEY is needed to use them.'
        : 'Its stored record cannot be read (SECRETS_KEY changed?).';
      const open = record.fields as SourceFieldsInput;
      this.known.set(name, { version: record.version, fields: open, createdAt: record.created_at });
      this.sources.put(unusable(name, record.fields), reason);
      return;
    }
    this.known.set(name, { version: record.version, fields, createdAt: record.created_at });
    this.sources.put(sourceDefinition(name, fields, 'api'));
  }

  private async forget(name: string): Promise<void> {
    this.known.delete(name);
    await this.sources.remove(name);
  }

  /** The source's definition, its URLs allowed by the URL rules, or a 400 saying why not. */
  private async checked(name: string, fields: SourceFieldsInput): Promise<SourceDefinition> {
    let definition: SourceDefinition;
    try {
      definition = sourceDefinition(name, fields, 'api');
    } catch (error) {
      if (error instanceof SourceInvalid) throw new ApiError(400, error.message);
      throw error;
    }
    const { allowPrivate } = this.settings.sources;
    for (const url of [fields.url, fields.document, fields.base_url, tokenUrlOf(fields.auth)]) {
      if (url === undefined) continue;
      const refusal = sourceUrlRefusal(url, allowPrivate);
      if (refusal) throw new ApiError(400, redacted(definition, refusal));
      try {
        await checkSourceUrl(url, allowPrivate, this.resolver);
      } catch (error) {
        throw new ApiError(400, redacted(definition, (error as Error).message));
      }
    }
    return definition;
  }

  private record(
    name: string,
    fields: SourceFieldsInput,
    created: string,
    updated: string,
  ): SourceRecord {
    const { open, secrets } = splitSecrets(fields);
    const sealed = secrets === null ? null : this.box.seal(JSON.stringify(secrets));
    return { name, fields: open, sealed, created_at: created, updated_at: updated };
  }
}

const isConfig = (source: { definition: SourceDefinition }) =>
  source.definition.origin === 'config';

function inConfigFile(name: string): ApiError {
  return new ApiError(409, `Source ${name} is defined in CONFIG_FILE.`);
}

/** What can be shown of a stored source whose secrets cannot be opened: its kind, URL, prefix. */
function unusable(name: string, open: Record<string, unknown>): SourceDefinition {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    ...sourceDefinition(name, { kind: 'mcp', url: 'https://unusable.invalid/' }, 'api'),
    kind: open.kind === 'openapi' ? 'openapi' : 'mcp',
    url: text(open.url),
    document: text(open.document),
    baseUrl: text(open.base_url),
    prefix: text(open.prefix) ?? name,
  };
}
