import type { Page } from 'playwright-core';
import { listenOnLoopback, startApp, TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import { ConsoleBrowser, tablesShowTheyScroll, until } from '../support/console-browser';
import { verifiedEvent, WebhookReceiver } from '../support/webhook-receiver';

/** A control that changes something: none may be shown to a key without admin:write. */
const CHANGING =
  /create|add |edit|disable|enable|rotate|revoke|cancel|call |save|delete|retry|send a test/i;
const WHSEC = /^whsec_[A-Za-z0-9+/]+=*$/;

/**
 * The console's Webhooks pages in Chromium, against the real service on SQLite delivering to a
 * receiver on loopback that verifies every request with `standardwebhooks`: an endpoint made with
 * its secret shown once, a test event, deliveries with their attempts and errors, a retry, a
 * rotation, disable and enable, what an admin:read key sees, and 360 px.
 */
describe('the console: webhooks, in Chromium', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let c: ConsoleBrowser;
  const secrets = new Set<string>();
  let endpoint: { id: string; secret: string };

  /** A table's scrolling region (a card's section may carry the same name). */
  const table = (label: string) => page.locator(`.table-wrap[aria-label="${label}"]`);
  const endpointView = async () =>
    (await c.api(`/api/v1/webhooks/${endpoint.id}`, t.adminKey)).body as Record<string, unknown>;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startApp({
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_MS: '50',
        WEBHOOK_RETRY_SCHEDULE: '0.05,0.05',
      },
    });
    c = new ConsoleBrowser(`http://127.0.0.1:${await listenOnLoopback(t.app)}`);
    secrets.add(t.adminKey);
    // Another endpoint, turned off by an operator.
    const other = await c.api('/api/v1/webhooks', t.adminKey, {
      body: {
        url: 'http://127.0.0.1:9/billing',
        events: ['quota.threshold'],
        description: 'billing',
      },
    });
    expect(other.status).toBe(201);
    secrets.add(other.body.secret);
    const off = await c.api(`/api/v1/webhooks/${other.body.id}`, t.adminKey, {
      method: 'PATCH',
      body: { enabled: false },
    });
    expect(off.status).toBe(200);
    browser = await launchChromium();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: c.base,
    });
    page = c.watch(await browser.context.newPage());
    await c.signIn(page, t.adminKey);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('adds an endpoint: its fields checked first, its secret shown once and never again', async () => {
    await c.visit(page, '/webhooks', 'Webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an endpoint' });
    const asked = c.urls.length;
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();
    await dialog.getByText('Required: where events are sent.').waitFor();
    expect(await dialog.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('URL').fill(receiver.url);
    await dialog.getByLabel('Description').fill('ops alerts');
    await dialog.getByLabel(/Every event/).uncheck();
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();
    await dialog.getByText('Choose at least one event.').waitFor();
    // Nothing was sent while the form had problems.
    expect(c.urls.slice(asked).filter((url) => url.endsWith('/api/v1/webhooks'))).toEqual([]);
    await dialog.getByLabel('webhook.test').check();
    await dialog.getByLabel('run.ended').check();
    await c.accessible(page, 'add-endpoint dialog');
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();

    const shown = page.getByRole('dialog', { name: 'Endpoint created' });
    const secret = (await shown.getByTestId('secret').innerText()).trim();
    expect(secret).toMatch(WHSEC);
    secrets.add(secret);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown.getByRole('button', { name: 'Copied' }).waitFor();
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('heading', { level: 1, name: 'ops alerts' }).waitFor();
    const id = page.url().split('/').pop() as string;
    endpoint = { id, secret };
    expect(await endpointView()).toMatchObject({
      url: receiver.url,
      events: ['webhook.test', 'run.ended'],
      description: 'ops alerts',
      enabled: true,
    });
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'ops alerts' }).waitFor();
    expect(await page.content()).not.toContain(secret);
  });

  it('sends a test; shows its attempts and errors; retries it once it failed', async () => {
    receiver.answer({ status: 500 }, { status: 500 }, { status: 500 });
    await page.getByRole('button', { name: 'Send a test' }).click();
    await page.getByText(/A webhook.test event is on its way/).waitFor();
    const row = table('Deliveries').locator('tbody tr[data-delivery]').first();
    // Three attempts (the first and two retries), each answered 500: failed.
    await until(async () => (await row.count()) > 0 && /failed/.test(await row.innerText()));
    const cells = await row.locator('td').allInnerTexts();
    expect(cells.slice(0, 4)).toEqual([
      expect.stringMatching(/^webhook\.test\s+msg_/),
      'failed',
      '3',
      expect.stringContaining('500'),
    ]);
    expect(receiver.received).toHaveLength(3);
    await c.accessible(page, 'webhook with a failed delivery');

    await row.getByRole('button', { name: /^Retry the webhook.test delivery/ }).click();
    await until(async () => /succeeded/.test(await row.innerText()));
    expect(await row.getByRole('button').count()).toBe(0);
    const [first, , , again] = await receiver.waitFor(4);
    // The same event (its webhook-id) again, signed with the endpoint's secret.
    expect(verifiedEvent(again, endpoint.secret)).toMatchObject({ type: 'webhook.test' });
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
    // Delivered again: the endpoint is no longer failing.
    await page.locator('dl.facts .badge', { hasText: 'active' }).waitFor();
    expect((await endpointView()).failing_since).toBeNull();
    await c.shot(page, 'webhook');
  });

  it('rotates the secret with a grace: the new one shown once, both sign meanwhile', async () => {
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret' });
    await dialog.getByLabel('Grace for the old secret').selectOption('3600');
    await dialog.getByRole('button', { name: 'Rotate' }).click();
    const shown = page.getByRole('dialog', { name: 'Secret rotated' });
    const secret = (await shown.getByTestId('secret').innerText()).trim();
    expect(secret).toMatch(WHSEC);
    expect(secret).not.toBe(endpoint.secret);
    secrets.add(secret);
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByText('Old secret until').waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('button', { name: 'Send a test' }).click();
    const [, , , , hook] = await receiver.waitFor(5);
    expect(verifiedEvent(hook, secret).type).toBe('webhook.test');
    expect(verifiedEvent(hook, endpoint.secret).type).toBe('webhook.test');
  });

  it('disables and enables the endpoint', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('The endpoint is disabled').waitFor();
    expect(await endpointView()).toMatchObject({ enabled: false, disabled_reason: 'operator' });
    expect(await page.getByRole('button', { name: 'Send a test' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('The endpoint is enabled again').waitFor();
    expect(await endpointView()).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it('lists the endpoints with their state', async () => {
    await c.visit(page, '/webhooks', 'Webhooks');
    const rows = table('Webhook endpoints').locator('tbody tr[data-endpoint]');
    await until(async () => (await rows.count()) === 2);
    const texts = await rows.allInnerTexts();
    expect(texts.find((text) => text.includes('ops alerts'))).toMatch(/active[\s\S]*webhook\.test/);
    expect(texts.find((text) => text.includes('billing'))).toMatch(/disabled\s*by an operator/);
    await c.accessible(page, 'webhooks');
    await c.shot(page, 'webhooks');
  });

  it('shows an admin:read key no changing control, and the API refuses a forged retry', async () => {
    const created = await c.api('/api/v1/auth/api-keys', t.adminKey, {
      body: { name: 'auditor', scopes: ['admin:read'] },
    });
    secrets.add(created.body.key);
    const other = c.watch(await browser.context.newPage());
    await c.signIn(other, created.body.key);
    for (const [path, title] of [
      ['/webhooks', 'Webhooks'],
      [`/webhooks/${endpoint.id}`, 'ops alerts'],
    ]) {
      await c.visit(other, path, title);
      await other.waitForLoadState('networkidle');
      const buttons = await other.getByRole('button').allInnerTexts();
      expect({ path, changing: buttons.filter((name) => CHANGING.test(name)) }).toEqual({
        path,
        changing: [],
      });
    }
    await other.locator('tbody tr[data-delivery]').first().waitFor();
    const forged = await other.evaluate(`(async () => {
      const response = await fetch('/api/v1/webhooks/${endpoint.id}/test', {
        method: 'POST',
        headers: { Authorization: 'Bearer ' + sessionStorage.getItem('tis-console-key') },
      });
      return { status: response.status, body: await response.json() };
    })()`);
    expect(forged).toEqual({
      status: 403,
      body: { detail: 'Insufficient permissions for this operation.' },
    });
    await other.close();
  });

  it('at 360 px: the pages fit and pass axe', async () => {
    const narrow = await launchChromium({ width: 360, height: 780 });
    try {
      const small = c.watch(await narrow.context.newPage());
      await c.signIn(small, t.adminKey);
      for (const [path, title, name] of [
        ['/webhooks', 'Webhooks', 'webhooks'],
        [`/webhooks/${endpoint.id}`, 'ops alerts', 'webhook'],
      ]) {
        await c.visit(small, path, title);
        await small.waitForLoadState('networkidle');
        await c.fitsTheWidth(small, path);
        expect(await tablesShowTheyScroll(small, path)).toBeGreaterThan(0);
        await c.accessible(small, `${name} at 360 px`);
        await c.shot(small, name);
      }
    } finally {
      await narrow.close();
    }
  });

  it('never puts a key or a secret in a URL, localStorage or the log; no policy violation', async () => {
    for (const secret of secrets) {
      expect(c.urls.filter((url) => url.includes(secret))).toEqual([]);
      expect(t.logs.text()).not.toContain(secret);
    }
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(c.problems).toEqual([]);
  });
});
