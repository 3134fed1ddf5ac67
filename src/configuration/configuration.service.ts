import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { AuditActor } from '../audit';
import { AuditService } from '../audit';
import { liesInside } from '../kernel/common/paths';
import { ApiError, ValidationFailed } from '../kernel/errors/api-error';
import { ENVIRONMENT, Environment, Settings, SETTINGS } from '../kernel/settings/settings';
import { OverrideStore } from './override.store';
import { parseRaw } from './coercion';
import {
  ConfigScalar,
  ConfigSectionDefinition,
  ConfigTree,
  ConfigValue,
} from './configuration.types';
import { CORE_SECTIONS } from './core-sections';
import { ConfigSchema, ConfigSection, isWellFormedKey, SchemaKey } from './configuration.schema';
import {
  EnvPin,
  InvalidOverride,
  readConfigFile,
  readEnvironment,
  sortOverrides,
} from './configuration.sources';
import {
  buildTree,
  ConfigSnapshot,
  PendingRestart,
  redactValue,
  resolve,
  ResolvedValue,
} from './configuration.tree';

export { REDACTED } from './configuration.tree';
export type { ConfigSnapshot, PendingRestart, ResolvedValue } from './configuration.tree';

/** Called after the stored overrides change; the change is answered once it resolves. */
export type ChangeListener = () => Promise<void>;

/** What is fixed at start-up: the schema, the file and environment layers, the listening values. */
interface Loaded {
  schema: ConfigSchema;
  file: ReadonlyMap<string, ConfigScalar>;
  env: ReadonlyMap<string, EnvPin>;
  startup: ReadonlyMap<string, ConfigScalar>;
}

/**
 * The one configuration system of the process: a typed schema, layered lowest first as defaults,
 * CONFIG_FILE, stored overrides, environment. The file and the environment are read once at start-up
 * (and stop it when invalid); the overrides are read from the store on every call, so every instance
 * sees a change at once. `logging.level` and `logging.verbose` are applied to the running logger at
 * start and whenever the overrides change.
 */
@Injectable()
export class ConfigurationService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Config');
  private loading?: Promise<Loaded>;
  private loaded?: Loaded;
  private unsubscribe?: () => void;
  private readonly changeListeners = new Set<ChangeListener>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly store: OverrideStore,
    @Inject(ENVIRONMENT) private readonly env: Environment,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly audit: AuditService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.ready();
    // Overrides written on another instance (Redis) reach this one's listeners too.
    this.unsubscribe = this.store.onOverridesChanged(() => {
      this.changed().catch(() => undefined);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /**
   * Calls `listener` after every change of the stored overrides, here or (shared stores) on another
   * instance; `config_set` answers once the listeners are done, so what applies live applies at once.
   */
  onChange(listener: ChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private async changed(): Promise<void> {
    for (const listener of this.changeListeners) await listener();
  }

  /** Loads once; other modules may call in before this module's own init hook has run. */
  private ready(): Promise<Loaded> {
    this.loading ??= this.load();
    return this.loading;
  }

  private async load(): Promise<Loaded> {
    const schema = new ConfigSchema([...CORE_SECTIONS, ...this.contributedSections()], {
      dataDir: this.settings.dataDir,
    });
    const file = readConfigFile(this.settings.configFile, this.settings.configDocument, schema);
    const env = readEnvironment(this.env, schema);
    const partial = { schema, file, env, startup: new Map<string, ConfigScalar>() };
    const snapshot = await this.read(partial);
    for (const { key, reason } of snapshot.invalidOverrides) {
      this.logger.warn(`Ignoring the stored override of '${key}': ${reason}`);
    }
    const startup = new Map(
      schema
        .keys()
        .filter((k) => k.spec.restart)
        .map((k) => [k.key, (snapshot.values.get(k.key) as ResolvedValue).value]),
    );
    this.loaded = { ...partial, startup };
    return this.loaded;
  }

  /** Sections registered with `ConfigurationModule.forFeature()` anywhere in the application. */
  private contributedSections(): ConfigSectionDefinition[] {
    const found = new Set<ConfigSection>();
    for (const wrapper of this.discovery.getProviders()) {
      if (wrapper.instance instanceof ConfigSection) found.add(wrapper.instance);
    }
    return [...found].map((section) => section.definition);
  }

  private get state(): Loaded {
    if (!this.loaded) throw new Error('The configuration is read before the application started');
    return this.loaded;
  }

  /** The schema of every key (sections, types, defaults, secrets, environment names). */
  get schema(): ConfigSchema {
    return this.state.schema;
  }

  /** Keys the environment pins, with the variable that pins each. */
  envPins(): ReadonlyMap<string, string> {
    return new Map([...this.state.env].map(([key, pin]) => [key, pin.variable]));
  }

  /** The values the process started with, for the keys that need a restart (`server.*`). */
  startupValues(): ReadonlyMap<string, ConfigScalar> {
    return this.state.startup;
  }

  /** Where the HTTP server listens: `server.host` and `server.port` as they were at start-up. */
  listenAddress(): { host: string; port: number } {
    const startup = this.state.startup;
    return {
      host: startup.get('server.host') as string,
      port: startup.get('server.port') as number,
    };
  }

  /** Every layer, read now. */
  async snapshot(): Promise<ConfigSnapshot> {
    return this.read(await this.ready());
  }

  private async read({ schema, file, env }: Loaded): Promise<ConfigSnapshot> {
    const { valid, invalid } = sortOverrides(await this.store.getOverrides(), schema);
    const values = new Map<string, ResolvedValue>();
    for (const entry of schema.keys()) {
      values.set(entry.key, resolve(entry, file, valid, env));
    }
    return { values, overrides: valid, invalidOverrides: invalid };
  }

  /** The effective tree; with `redact`, secrets that are set read "********". */
  async tree(options: { redact?: boolean } = {}): Promise<ConfigTree> {
    const snapshot = await this.snapshot();
    this.logger.debug('Read the configuration tree');
    return buildTree(this.state.schema.keys(), snapshot, '', options.redact ?? false);
  }

  /** One value, or a section as an object. Unknown keys: 404. */
  async get(key: string, options: { redact?: boolean } = {}): Promise<ConfigValue> {
    const { schema } = await this.ready();
    const entry = this.known(schema, key);
    const snapshot = await this.snapshot();
    const redact = options.redact ?? false;
    if (!entry) {
      this.logger.debug(`Read configuration section ${key}`);
      return buildTree(schema.keysUnder(key), snapshot, key, redact);
    }
    const resolved = snapshot.values.get(key) as ResolvedValue;
    this.logger.debug(`Read configuration key ${key} from the ${resolved.layer} layer`);
    return redact ? redactValue(entry, resolved.value) : resolved.value;
  }

  /** One key's value, the layer it comes from, and its schema entry. */
  async resolve(key: string): Promise<ResolvedValue & { entry: SchemaKey }> {
    const { schema } = await this.ready();
    const entry = this.leaf(schema, key);
    const resolved = (await this.snapshot()).values.get(key) as ResolvedValue;
    return { ...resolved, entry };
  }

  /**
   * Coerces `raw`, checks it against the key and stores it as an override. 404 for an unknown key,
   * 400 for a section or a value the key does not take, 409 when the environment pins the key.
   * Returns the stored value.
   */
  async set(key: string, raw: string, actor: AuditActor): Promise<ConfigScalar> {
    const { schema, env } = await this.ready();
    const entry = this.leaf(schema, key);
    const pin = env.get(key);
    if (pin) {
      throw new ApiError(
        409,
        `Configuration key '${key}' is pinned by the environment variable ${pin.variable}; change ${pin.variable} and restart instead`,
      );
    }
    const checked = parseRaw(key, entry.spec, raw);
    if (!checked.ok) {
      const { msg, type } = checked.rejection;
      throw new ValidationFailed([{ loc: ['body', 'value'], msg, type }]);
    }
    if (
      entry.spec.type === 'string' &&
      entry.spec.insideDataDir &&
      !liesInside(this.settings.dataDir, String(checked.value))
    ) {
      throw new ValidationFailed([
        {
          loc: ['body', 'value'],
          msg: `Value error, the path must lie inside DATA_DIR (${this.settings.dataDir})`,
          type: 'value_error',
        },
      ]);
    }
    await this.store.setOverride(key, checked.value);
    // The value as a client may see it: a secret is recorded by key, masked.
    await this.audit.record(actor, 'config.set', key, { value: redactValue(entry, checked.value) });
    this.logger.log(
      `Configuration override stored for ${key}${entry.spec.restart ? ' (applies after a restart)' : ''}`,
    );
    await this.changed();
    return checked.value;
  }

  /** What a client may see of a key's value. */
  redact(key: string, value: ConfigScalar): ConfigScalar {
    const entry = this.state.schema.key(key);
    return entry ? redactValue(entry, value) : value;
  }

  /** Stored overrides the schema rejects: ignored by the tree, reported and removable by `doctor`. */
  async invalidOverrides(): Promise<InvalidOverride[]> {
    return (await this.snapshot()).invalidOverrides;
  }

  /** Deletes a stored override, valid or not. */
  async removeOverride(key: string): Promise<void> {
    await this.store.deleteOverride(key);
    await this.changed();
  }

  /** Restart-requiring keys configured differently from what the process runs with. */
  async pendingRestart(): Promise<PendingRestart[]> {
    const snapshot = await this.snapshot();
    return [...this.state.startup].flatMap(([key, running]) => {
      const configured = (snapshot.values.get(key) as ResolvedValue).value;
      return configured === running ? [] : [{ key, running, configured }];
    });
  }

  /** A schema key, or undefined for a section; anything else is a 404. */
  private known(schema: ConfigSchema, key: string): SchemaKey | undefined {
    if (!isWellFormedKey(key)) throw notFound(key);
    const entry = schema.key(key);
    if (entry) return entry;
    if (schema.isSection(key)) return undefined;
    throw notFound(key);
  }

  /** A key that holds a value: a section is a 400, anything unknown a 404. */
  private leaf(schema: ConfigSchema, key: string): SchemaKey {
    const entry = this.known(schema, key);
    if (entry) return entry;
    const keys = schema.keysUnder(key).map((k) => k.key);
    throw new ValidationFailed([
      {
        loc: ['body', 'key'],
        msg: `${key} is a section, not a value: set one of its keys (${keys.join(', ')})`,
        type: 'value_error',
      },
    ]);
  }
}

function notFound(key: string): ApiError {
  return new ApiError(404, `Configuration key '${key}' not found`);
}
