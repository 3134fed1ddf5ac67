import { Provider } from '@nestjs/common';
import { StoreMakers, storeProvider } from '../kernel/store/store.module';
import { KeyStore } from './key.store';
import { PrincipalStore } from './principal.store';
import { RedisKeyStore } from './redis-key.store';
import { RedisPrincipalStore } from './redis-principal.store';
import { SqliteKeyStore } from './sqlite-key.store';
import { SqlitePrincipalStore } from './sqlite-principal.store';

/** API keys' records, on either backend. */
export const KEY_STORE: StoreMakers<KeyStore> = {
  sqlite: (sqlite) => new SqliteKeyStore(sqlite),
  redis: (redis) => new RedisKeyStore(redis),
};

/** OAuth principals' records, on either backend. */
export const PRINCIPAL_STORE: StoreMakers<PrincipalStore> = {
  sqlite: (sqlite) => new SqlitePrincipalStore(sqlite),
  redis: (redis) => new RedisPrincipalStore(redis),
};

/** The subjects' stores: API keys and OAuth principals, on the process's backend. */
export const SUBJECT_STORES: Provider[] = [
  storeProvider(KeyStore, KEY_STORE),
  storeProvider(PrincipalStore, PRINCIPAL_STORE),
];
