import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteKeyStore } from '../../../subjects/sqlite-key.store';
import { SqliteDatabase } from '../../../kernel/store/sqlite/sqlite.database';
import { StoreUnavailableError } from '../../../kernel/store/store';
import { StoreCheck } from './store.check';

describe('StoreCheck', () => {
  const open = () => new SqliteDatabase(mkdtempSync(join(tmpdir(), 'tis-store-check-')));
  const check = (store: SqliteDatabase) => new StoreCheck(store, new SqliteKeyStore(store));

  it('passes on a reachable, intact store, naming it', async () => {
    const store = open();
    const outcome = await check(store).check();
    expect(outcome).toEqual({
      status: 'pass',
      message: `The sqlite store ${store.describe()} answers and is intact`,
    });
    await store.close();
  });

  it('fails when the store reports damage', async () => {
    const store = open();
    jest
      .spyOn(store, 'checkIntegrity')
      .mockResolvedValue(['Page 3: btreeInitPage() returns error code 11']);
    const outcome = await check(store).check();
    expect(outcome.status).toBe('fail');
    expect(outcome.message).toContain('reports damage: Page 3');
    await store.close();
  });

  it('fails when the store cannot be reached', async () => {
    const store = open();
    jest.spyOn(store, 'probe').mockRejectedValue(new StoreUnavailableError('connection refused'));
    const outcome = await check(store).check();
    expect(outcome).toMatchObject({ status: 'fail' });
    expect(outcome.message).toContain('cannot be reached: connection refused');
    await store.close();
  });
});
