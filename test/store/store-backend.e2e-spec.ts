import { Store } from '../../src/kernel/store/store';
import { startApp, TestApp } from '../support/app';
import { usingSharedRedis } from '../support/redis';

/** Each jest e2e project runs the suite on its own backend: `e2e` on SQLite, `e2e-redis` on Redis. */
describe('store backend of this run (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it(`is ${usingSharedRedis() ? 'Redis' : 'SQLite'}`, async () => {
    const store = t.app.get(Store);
    expect(store.kind).toBe(usingSharedRedis() ? 'redis' : 'sqlite');
    await expect(store.ping()).resolves.toBeUndefined();
    await expect(store.checkIntegrity()).resolves.toEqual([]);
  });
});
