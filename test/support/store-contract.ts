import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../../src/kernel/settings/settings';
import {
  makeStore,
  openBackend,
  StoreBackend,
  StoreMakers,
  storeOf,
} from '../../src/kernel/store/store.module';
import { RedisServer } from './redis';

export type BackendKind = StoreBackend['kind'];

/** One open store of the concern under test, and a way to open another on the same data. */
export interface ContractStore<T> {
  kind: BackendKind;
  store: T;
  /** Another store of the concern on the same data: another connection, as another instance has. */
  another(): Promise<T>;
}

let prefixes = 0;

/**
 * A store concern's contract: `cases` run once on SQLite (a temporary DATA_DIR) and once on Redis
 * (a redis-server of the spec file's own, on a free loopback port; each test under a fresh key
 * prefix), the store made as the service makes it (the feature's StoreMakers). A case of one
 * backend only is defined under `kind`.
 */
export function onBothBackends<T>(
  concern: string,
  make: StoreMakers<T>,
  cases: (current: () => ContractStore<T>, kind: BackendKind) => void,
): void {
  describe.each(['sqlite', 'redis'] as const)(`${concern} on %s`, (kind) => {
    let server: RedisServer | undefined;
    let dir: string;
    let backends: StoreBackend[] = [];
    let current: ContractStore<T>;

    beforeAll(async () => {
      if (kind === 'redis') server = await RedisServer.start();
    });
    afterAll(async () => {
      await server?.stop();
    });
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tis-contract-'));
      const env: Record<string, string> = { DATA_DIR: dir };
      if (server) {
        env.REDIS_URL = server.url;
        env.REDIS_KEY_PREFIX = `contract-${process.pid}-${++prefixes}:`;
      }
      const settings = loadSettings(env);
      const open = async () => {
        const backend = await openBackend(settings);
        backends.push(backend);
        return makeStore(backend, make);
      };
      current = { kind, store: await open(), another: open };
    });
    afterEach(async () => {
      await Promise.all(backends.map((backend) => storeOf(backend).close()));
      backends = [];
      rmSync(dir, { recursive: true, force: true });
    });

    cases(() => current, kind);
  });
}
