import { bearer, startApp, TestApp } from '../support/app';
import { CLI_TIMEOUT_MS, runCli } from '../support/cli';
import { verifiedEvent, WebhookReceiver } from '../support/webhook-receiver';

/**
 * The CLI's `webhooks` commands on the store a running server uses: what the CLI stores, the
 * server's deliverer sends (the CLI publishes, a server delivers).
 */
describe('webhooks CLI (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const env = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20' };

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    t = await startApp({ env });
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  const cli = (...args: string[]) => runCli(['webhooks', ...args], { ...env, DATA_DIR: t.dataDir });

  it(
    'creates, lists, tests, rotates, disables and deletes an endpoint, the server delivering',
    async () => {
      const created = await cli(
        'create',
        '--url',
        receiver.url,
        '--events',
        'webhook.test',
        '--json',
      );
      expect(created).toMatchObject({ code: 0, stderr: '' });
      const endpoint = JSON.parse(created.stdout) as { id: string; secret: string };
      expect(endpoint.secret).toMatch(/^whsec_/);

      const listed = await cli('list', '--json');
      expect(JSON.parse(listed.stdout)).toEqual([
        expect.objectContaining({ id: endpoint.id, url: receiver.url, events: ['webhook.test'] }),
      ]);
      expect(listed.stdout).not.toContain('whsec_');

      const tested = await cli('test', endpoint.id);
      expect(tested).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Queued dlv_/) });
      const [hook] = await receiver.waitFor(1);
      expect(verifiedEvent(hook, endpoint.secret).type).toBe('webhook.test');

      const deliveries = await cli('deliveries', endpoint.id);
      expect(deliveries.stdout).toMatch(
        /^id\tat\ttype\tstatus\tattempts\tanswer\ndlv_\S+\t\S+\twebhook\.test\t(pending|succeeded)\t/,
      );

      const rotated = await cli('rotate-secret', endpoint.id, '--grace-seconds', '0');
      expect(rotated.stdout).toMatch(
        /no longer signs[\s\S]*Secret \(shown once, store it now\): whsec_/,
      );

      const disabled = await cli('update', endpoint.id, '--disable', '--json');
      expect(JSON.parse(disabled.stdout)).toMatchObject({
        enabled: false,
        disabled_reason: 'operator',
      });
      const view = await t.http().get(`/api/v1/webhooks/${endpoint.id}`).set(bearer(t.adminKey));
      expect(view.body).toMatchObject({ enabled: false });

      expect(await cli('delete', endpoint.id)).toMatchObject({ code: 0 });
      expect(await cli('delete', endpoint.id)).toMatchObject({
        code: 1,
        stderr: 'error: Webhook endpoint not found\n',
      });
      const audit = await t.http().get('/api/v1/audit').set(bearer(t.adminKey));
      const actions = (audit.body as { entries: { action: string }[] }).entries.map(
        (e) => e.action,
      );
      expect(actions.slice(0, 4)).toEqual([
        'webhook.deleted',
        'webhook.updated',
        'webhook.secret_rotated',
        'webhook.created',
      ]);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'refuses a target it may not reach, saying why, with the exit code of bad usage',
    async () => {
      const refused = await runCli(
        ['webhooks', 'create', '--url', 'https://169.254.169.254/x', '--events', '*'],
        { DATA_DIR: t.dataDir },
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^error: .*169\.254\.169\.254/);
      const listed = await t.http().get('/api/v1/webhooks').set(bearer(t.adminKey));
      expect(listed.body).toEqual({ webhooks: [], next_cursor: null });
    },
    CLI_TIMEOUT_MS,
  );
});
