import type { Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import {
  AuthorizationServer,
  SERVICE_SCOPES,
  startAuthorizationServer,
} from '../support/oauth/authorization-server';
import { freePort } from '../support/redis';

/**
 * The console's sign-in through an issuer (CONSOLE_OAUTH_CLIENT_ID, CONSOLE_OAUTH_ISSUER): a real
 * authorization server (oidc-provider, approving by itself), a public client registered there,
 * the service listening on the origin PUBLIC_URL names, the code and PKCE round trip in Chromium.
 */
describe('the operator console signs in through an issuer', () => {
  let as: AuthorizationServer;
  let t: TestApp;
  let base: string;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    as = await startAuthorizationServer();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const registered = await fetch(`${as.issuer}/reg`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client_name: 'operator console',
        redirect_uris: [`${base}/console/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: SERVICE_SCOPES,
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    t = await startApp({
      env: {
        PUBLIC_URL: base,
        OAUTH_ISSUERS: as.issuer,
        CONSOLE_OAUTH_CLIENT_ID: client_id,
        CONSOLE_OAUTH_ISSUER: as.issuer,
        OAUTH_PLAN_CLAIM: 'plan',
      },
    });
    await t.app.listen(port, '127.0.0.1');
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('console', (message) => {
      if (/Failed to load resource/.test(message.text())) return;
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await as?.stop();
  });

  it('allows the console to reach that issuer, and no other origin', async () => {
    const response = await fetch(`${base}/console`);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy.split(';')).toContain(`connect-src 'self' ${new URL(as.issuer).origin}`);
    const config = await fetch(`${base}/console/config.json`);
    expect(await config.json()).toEqual({
      oauth: {
        issuer: as.issuer,
        client_id: expect.any(String),
        redirect_uri: `${base}/console/callback`,
        resource: base,
        scope: 'admin:read admin:write services:read services:execute',
      },
    });
  });

  it('signs in with the code and PKCE, and keeps the token as it keeps a key', async () => {
    await as.control('interaction', { mode: 'approve', accountId: 'operator-1' });
    // A plan whose rate limit the console's own reads stay within.
    await as.control('plan', { subject: 'operator-1', plan: 'unlimited' });
    await page.goto(`${base}/console`);
    await page.getByRole('button', { name: `Sign in with ${new URL(as.issuer).host}` }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    // Back on the console, the code gone from the address.
    expect(page.url()).toBe(`${base}/console/`);
    expect(await page.getByText('operator-1').count()).toBeGreaterThan(0);
    const token = await page.evaluate<string | null>("sessionStorage.getItem('tis-console-key')");
    expect(token).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    // The token is a principal's, with the scopes the console asked for.
    const me = await fetch(`${base}/api/v1/auth/me`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(await me.json()).toMatchObject({
      auth_method: 'oauth',
      subject: 'operator-1',
      scopes: expect.arrayContaining(['admin:read', 'admin:write']),
    });
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Create key' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('shows a refusal of the issuer in words', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    // A browser of its own: the issuer's session of the first sign-in would approve at once.
    const fresh = await launchChromium();
    try {
      const other = await fresh.context.newPage();
      await as.control('interaction', { mode: 'deny' });
      await other.goto(`${base}/console`);
      await other.getByRole('button', { name: `Sign in with ${new URL(as.issuer).host}` }).click();
      const alert = other.getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText()).toContain(
        'The authorization server refused: denied by test AS.',
      );
      expect(await other.evaluate('sessionStorage.length')).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});
