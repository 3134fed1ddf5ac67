import { Logger } from '@nestjs/common';
import type { Settings } from '../settings/settings';
import { Store } from '../store/store';
import { HealthService } from './health.service';

const settings = { version: '1.2.3' } as Settings;

/** Only what the health checks call; a real hung backend cannot be made on demand. */
function storeWith(ping: () => Promise<void>): Store {
  return { kind: 'sqlite', ping, probe: ping } as unknown as Store;
}

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
      storeWith(() => Promise.resolve()),
      {
        ...settings,
        redisUrl: 'redis://127.0.0.1:6379',
      },
    );
    const view = await health.check();
    expect(view.status).toBe('degraded');
    expect(view.components).toEqual({ store: { status: 'ok' }, redis: { status: 'error' } });
  });
});
