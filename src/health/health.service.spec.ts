import { Logger } from '@nestjs/common';
import { loadSettings, Settings } from '../kernel/settings/settings';
import { Store } from '../kernel/store/store';
import { HealthService } from './health.service';

const settings = { version: '1.2.3' } as Settings;

/** Only what the health checks call; a real hung backend cannot be made on demand. */
function storeWith(probe: () => Promise<unknown>, kind = 'sqlite'): Store {
  return { kind, probe } as unknown as Store;
}

const sentinel = loadSettings({ REDIS_SENTINELS: '127.0.0.1:26379' });

describe('HealthService', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterEach(() => jest.useRealTimers());

  it('reports a store that does not answer as an error, after a bounded wait', async () => {
    jest.useFakeTimers();
    const health = new HealthService(
      storeWith(() => new Promise(() => undefined)),
      settings,
    );
    const pending = health.check(new Date('2030-01-02T03:04:05Z'));
    await jest.advanceTimersByTimeAsync(2000);
    await expect(pending).resolves.toEqual({
      status: 'degraded',
      version: '1.2.3',
      timestamp: '2030-01-02T03:04:05.000Z',
      components: { store: { status: 'error' }, redis: { status: 'not_configured' } },
    });
  });

  it('reports a configured Redis the store does not use as an error', async () => {
    const health = new HealthService(
      storeWith(() => Promise.resolve(undefined)),
      { ...settings, redis: loadSettings({ REDIS_URL: 'redis://127.0.0.1:6379' }).redis },
    );
    const view = await health.check();
    expect(view.status).toBe('degraded');
    expect(view.components).toEqual({
      store: { status: 'ok' },
      redis: { status: 'error', mode: 'single', nodes: 0 },
    });
  });

  it('reports the topology the probe saw, and no address', async () => {
    const health = new HealthService(
      storeWith(() => Promise.resolve({ mode: 'sentinel', nodes: 2 }), 'redis'),
      { ...settings, redis: sentinel.redis },
    );
    const view = await health.check();
    expect(view.status).toBe('ok');
    expect(view.components.redis).toEqual({ status: 'ok', mode: 'sentinel', nodes: 2 });
    expect(JSON.stringify(view)).not.toContain('26379');
  });

  it('reports an unreachable Redis as an error of its mode, with no node counted', async () => {
    const health = new HealthService(
      storeWith(() => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:26379')), 'redis'),
      { ...settings, redis: sentinel.redis },
    );
    const view = await health.check();
    expect(view.status).toBe('degraded');
    expect(view.components).toEqual({
      store: { status: 'error' },
      redis: { status: 'error', mode: 'sentinel', nodes: 0 },
    });
  });
});
