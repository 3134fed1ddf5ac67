import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INITIAL_KEY_FILE } from '../../src/subjects/initial-key';
import { baseEnv, tempDataDir } from '../support/app';
import { freePort } from '../support/redis';
import { SpawnedApp, spawnApp } from '../support/spawned-app';
import { verifiedEvent, WebhookReceiver } from '../support/webhook-receiver';

/**
 * The outbox across a kill -9: the built server as operators run it, killed after an event is
 * stored and before it is sent, then started again on the same store, sends it once.
 */
describe('webhooks across a kill -9 (e2e)', () => {
  let receiver: WebhookReceiver;
  let server: SpawnedApp | undefined;

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    await receiver.close();
  });

  async function start(dataDir: string, port: number, pollMs: string) {
    server = spawnApp({
      env: {
        ...baseEnv(dataDir),
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_MS: pollMs,
      },
    });
    await server.line(/Listening on/);
  }

  it('delivers an event stored before the kill exactly once after the restart', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // The first instance looks for deliveries once, at its start, then not for an hour.
    await start(dataDir, port, '3600000');
    const key = readFileSync(join(dataDir, INITIAL_KEY_FILE), 'utf8').trim();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/api/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url, events: ['webhook.test'] }),
    });
    expect(created.status).toBe(201);
    const { id, secret } = (await created.json()) as { id: string; secret: string };
    const test = await fetch(`${base}/api/v1/webhooks/${id}/test`, { method: 'POST', headers });
    expect(test.status).toBe(202);
    const delivery = (await test.json()) as { id: string; event_id: string };
    await server!.stop('SIGKILL');
    expect(receiver.received).toHaveLength(0);

    await start(dataDir, port, '20');
    const [hook] = await receiver.waitFor(1);
    expect(verifiedEvent(hook, secret).id).toBe(delivery.event_id);
    // Recorded as sent once: no instance claims it again.
    for (let i = 0; i < 200; i++) {
      const page = await fetch(`${base}/api/v1/webhooks/${id}/deliveries`, { headers });
      const [found] = ((await page.json()) as { deliveries: { status: string }[] }).deliveries;
      if (found.status === 'succeeded') break;
      await new Promise((wake) => setTimeout(wake, 50));
    }
    const page = await fetch(`${base}/api/v1/webhooks/${id}/deliveries`, { headers });
    expect(((await page.json()) as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({ id: delivery.id, status: 'succeeded', attempt: 1 }),
    ]);
    expect(receiver.received).toHaveLength(1);
  });
});
