import AxeBuilder from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { startApp, TestApp, listenOnLoopback } from '../support/app';
import { launchChromium } from '../support/browser';
import { TokenIssuer } from '../support/oauth/token-issuer';
import { tablesShowTheyScroll } from '../support/console-browser';
import { steps, SteppedToolModule } from '../support/stepped-tool.module';

/**
 * Where the screenshots go: `CONSOLE_SCREENSHOTS=docs/console npm run test:console` refreshes
 * the documentation's; by default a folder git ignores.
 */
const SHOTS = join(
  __dirname,
  '..',
  '..',
  process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console',
);
const PUBLIC_URL = 'https://tis.example';
/** The first load's JavaScript, gzip, at most (the contract's 250 KB). */
const FIRST_LOAD_BUDGET = 250_000;
const SECRET = /sk_[0-9a-f]{64}/g;
const CHANGING = /create|edit|disable|enable|rotate|revoke|cancel|call |save|delete/i;

describe('the operator console in Chromium', () => {
  let t: TestApp;
  let issuer: TokenIssuer;
  let base: string;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  /** Every secret the test saw: none may reach a URL, a log or localStorage. */
  const secrets = new Set<string>();
  /** Every URL the browser asked for. */
  const urls: string[] = [];
  /** What the browser's console said of policies and errors. */
  const problems: string[] = [];

  const api = async (
    path: string,
    key: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const response = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer, as supertest's
    const body: any = text ? JSON.parse(text) : undefined;
    return { status: response.status, body };
  };
  const createKey = async (body: Record<string, unknown>) => {
    const created = await api('/api/v1/auth/api-keys', t.adminKey, { body });
    expect(created.status).toBe(201);
    secrets.add(created.body.key);
    return created.body as { id: string; key: string; name: string };
  };
  const greet = (key: string, name = 'Ada') =>
    api('/api/v1/services/greet', key, { body: { name } });

  function watch(target: Page): Page {
    target.on('request', (request) => urls.push(request.url()));
    target.on('console', (message) => {
      // Chromium logs every 4xx answer as an error: those the tests ask for are not problems.
      if (/Failed to load resource/.test(message.text())) return;
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) {
        problems.push(message.text());
      }
    });
    target.on('pageerror', (error) => problems.push(String(error)));
    return target;
  }

  async function newPage(context: BrowserContext): Promise<Page> {
    return watch(await context.newPage());
  }

  async function shot(target: Page, name: string): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    const width = target.viewportSize()?.width ?? 0;
    // Charts and lists drawn, fonts settled: nothing left loading.
    await target.waitForLoadState('networkidle');
    // From the top: the navigation where a reader first sees it.
    await target.evaluate('window.scrollTo(0, 0)');
    await target.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }

  /** No serious or critical violation of axe-core's rules (WCAG 2.x A and AA, best practices). */
  async function accessible(target: Page, where: string): Promise<void> {
    const { violations } = await new AxeBuilder({ page: target }).analyze();
    const serious = violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${where}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      );
    expect(serious).toEqual([]);
  }

  async function signIn(target: Page, key: string): Promise<void> {
    await target.goto(`${base}/console`);
    const first = target.locator('input, select, textarea, button').first();
    await first.waitFor();
    expect(await first.getAttribute('id')).toBe('api-key');
    await first.fill(key);
    await first.press('Enter');
    // At 360 px the navigation is behind the menu: there, but not shown.
    await target
      .getByRole('link', { name: 'Keys', includeHidden: true })
      .waitFor({ state: 'attached' });
  }

  async function signOut(target: Page): Promise<void> {
    const menu = target.getByRole('button', { name: 'Menu' });
    if (await menu.isVisible()) await menu.click();
    await target.getByRole('button', { name: 'Sign out' }).click();
    await target.getByLabel('API key').waitFor();
    expect(await target.evaluate('sessionStorage.length')).toBe(0);
  }

  async function visit(target: Page, path: string, ready: string): Promise<void> {
    await target.goto(`${base}/console${path}`);
    await target.getByRole('heading', { level: 1, name: ready }).waitFor();
  }

  /** Waits until `check` holds, asking again as the page changes (no time of the clock decides). */
  async function until<T>(check: () => Promise<T | undefined | false>): Promise<T> {
    for (;;) {
      const found = await check();
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    issuer = await TokenIssuer.start();
    t = await startApp({
      imports: [SteppedToolModule],
      env: { PUBLIC_URL, OAUTH_ISSUERS: issuer.issuer },
    });
    base = `http://127.0.0.1:${await listenOnLoopback(t.app)}`;
    secrets.add(t.adminKey);
    // Some life in the service: keys, their calls, a principal's, a few refusals.
    const ci = await createKey({ name: 'ci-runner', plan: 'pro' });
    const billing = await createKey({ name: 'billing-service', plan: 'unlimited' });
    await createKey({ name: 'analytics (read only)', scope_template: 'read_only' });
    for (let i = 0; i < 6; i++) await greet(ci.key, `run ${i}`);
    for (let i = 0; i < 3; i++) await greet(billing.key);
    await api('/api/v1/services/config_show', billing.key, { body: {} });
    await api('/api/v1/services/greet', billing.key, { body: {} });
    const token = await issuer.sign({ sub: 'agent-7', aud: PUBLIC_URL, scope: 'services:execute' });
    for (let i = 0; i < 2; i++) await greet(token);
    await greet(`sk_${'0'.repeat(64)}`);
    browser = await launchChromium();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: base,
    });
    page = await newPage(browser.context);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await issuer?.stop();
  });

  it('is served under a policy that allows no inline script, compressed', async () => {
    const response = await fetch(`${base}/console`, { headers: { 'Accept-Encoding': 'gzip' } });
    const policy = response.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      policy.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('script-src-attr')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
    const html = await response.text();
    // Every script is a file: no inline script in the page.
    expect(
      html.match(/<script\b[^>]*>/g)?.every((tag) => / src="\/console\/assets\//.test(tag)),
    ).toBe(true);
  });

  it('shows the text of a 401 for a wrong key, and says why a key without admin:read cannot sign in', async () => {
    await page.goto(`${base}/console`);
    await page.getByLabel('API key').fill(`sk_${'1'.repeat(64)}`);
    await page.getByLabel('API key').press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('Invalid API key');
    await accessible(page, 'sign-in with an error');
    const standard = await createKey({ name: 'no admin', scope_template: 'standard' });
    await page.getByLabel('API key').fill(standard.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await until(async () => (await alert.innerText()).includes('does not hold admin:read'));
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
  });

  it('loads at most 250 KB of gzip JavaScript first', async () => {
    const fresh = await newPage(browser.context);
    const scripts: string[] = [];
    fresh.on('response', (response) => {
      if (response.request().resourceType() === 'script') scripts.push(response.url());
    });
    await fresh.goto(`${base}/console`);
    await fresh.getByLabel('API key').waitFor();
    await fresh.waitForLoadState('networkidle');
    let gzip = 0;
    for (const url of scripts) {
      const response = await fetch(url, { headers: { 'Accept-Encoding': 'gzip' } });
      expect(response.headers.get('content-encoding')).toBe('gzip');
      gzip += Number(response.headers.get('content-length'));
    }
    expect(scripts.length).toBeGreaterThan(0);
    expect(gzip).toBeLessThanOrEqual(FIRST_LOAD_BUDGET);
    process.stdout.write(`console: first load ${scripts.length} script(s), ${gzip} bytes gzip\n`);
    await fresh.close();
  });

  it('signs in with the key in the first field and Enter; the navigation names Keys', async () => {
    await signIn(page, t.adminKey);
    await page.getByText('Calls today').waitFor();
    await until(async () => (await page.getByRole('cell', { name: 'ci-runner' }).count()) > 0);
    await accessible(page, 'overview');
    await shot(page, 'overview');
  });

  it('creates a key, shows its secret once and never again', async () => {
    await visit(page, '/keys', 'Keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a key' });
    await dialog.getByLabel('Name').fill('console-made');
    await dialog.getByLabel('Plan').selectOption('unlimited');
    await accessible(page, 'create-key dialog');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('dialog', { name: 'Key created' });
    const secret = (await shown.getByTestId('secret').innerText()).trim();
    expect(secret).toMatch(/^sk_[0-9a-f]{64}$/);
    secrets.add(secret);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('heading', { level: 1, name: 'console-made' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'console-made' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    expect((await greet(secret)).status).toBe(200);
  });

  it('draws the calls just made in the usage chart', async () => {
    const id = page.url().split('/').pop() as string;
    const key = [...secrets].pop() as string;
    for (let i = 0; i < 3; i++) expect((await greet(key)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      expect((await api('/api/v1/services/config_show', key, { body: {} })).status).toBe(200);
    }
    await visit(page, `/keys/${id}`, 'console-made');
    const figure = page.getByRole('img', { name: /calls by tool/ });
    // The greet before this test's own three, and config_show's two.
    await until(async () =>
      /config_show 2, greet 4/.test((await figure.getAttribute('aria-label')) ?? ''),
    );
    // Drawn: today's bar of each tool, in the chart's SVG.
    const bars = await until(async () => {
      const count = await figure.locator('.recharts-bar-rectangle path').count();
      return count >= 2 && count;
    });
    expect(bars).toBeGreaterThanOrEqual(2);
    await page.getByText('Show the figures').click();
    const today = new Date().toISOString().slice(0, 10);
    const row = page.getByRole('row', { name: new RegExp(`^${today}`) });
    expect((await row.innerText()).split(/\s+/)).toEqual([today, '2', '4']);
    await accessible(page, 'key');
    await shot(page, 'key');
  });

  it('disables and enables a key', async () => {
    const key = [...secrets].pop() as string;
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('The key is disabled').waitFor();
    expect(await greet(key)).toEqual({ status: 401, body: { detail: 'Invalid API key' } });
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('The key is enabled again').waitFor();
    expect((await greet(key)).status).toBe(200);
  });

  it('rotates a key with a grace: the new secret shown once, the old one still good', async () => {
    const old = [...secrets].pop() as string;
    await page.getByRole('button', { name: 'Rotate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate “console-made”' });
    await dialog.getByLabel('Grace for the old secret').selectOption('3600');
    await dialog.getByRole('button', { name: 'Rotate' }).click();
    const shown = page.getByRole('dialog', { name: 'Key rotated' });
    const secret = (await shown.getByTestId('secret').innerText()).trim();
    expect(secret).toMatch(/^sk_[0-9a-f]{64}$/);
    expect(secret).not.toBe(old);
    secrets.add(secret);
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByText('Old secret until').waitFor();
    expect(await page.content()).not.toContain(secret);
    expect((await greet(secret)).status).toBe(200);
    expect((await greet(old)).status).toBe(200);
  });

  it('revokes a key after a confirmation that names it', async () => {
    const key = [...secrets].pop() as string;
    await page.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke “console-made”?' });
    expect(await dialog.innerText()).toMatch(/the key “console-made” \(sk_[0-9a-f]{8}…\)/);
    await accessible(page, 'revoke dialog');
    // Not yet: the confirmation only asks.
    expect((await greet(key)).status).toBe(200);
    await dialog.getByRole('button', { name: 'Revoke “console-made”' }).click();
    await page.locator('.badge', { hasText: 'revoked' }).waitFor();
    expect(await greet(key)).toEqual({ status: 401, body: { detail: 'Invalid API key' } });
    expect(await page.getByRole('button', { name: 'Rotate' }).count()).toBe(0);
  });

  it("moves a long-running call's progress bar and cancels the call", async () => {
    const started = await api('/api/v1/services/stepped', t.adminKey, { body: { steps: 3 } });
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    await visit(page, '/invocations', 'Invocations');
    const running = page.locator('section[aria-labelledby="running"]');
    const bar = running.getByRole('progressbar', { name: `Progress of ${id}` });
    steps.release();
    await until(
      async () => (await bar.count()) > 0 && (await bar.getAttribute('aria-valuenow')) === '1',
    );
    steps.release();
    await until(async () => (await bar.getAttribute('aria-valuenow')) === '2');
    expect(await bar.getAttribute('aria-valuetext')).toBe('2 of 3');
    await accessible(page, 'invocations');
    await shot(page, 'invocations');
    await running.getByRole('button', { name: `Cancel the stepped call ${id}` }).click();
    await until(
      async () => (await api(`/api/v1/invocations/${id}`, t.adminKey)).body.status === 'cancelled',
    );
    const recent = page.locator('section[aria-labelledby="recent"]');
    await until(async () =>
      (await recent.locator(`tr[data-invocation="${id}"]`).innerText()).includes('cancelled'),
    );
  });

  it('calls greet from a form made of its schema and shows the answer with X-Quota-Cost', async () => {
    await visit(page, '/tools', 'Tools');
    await accessible(page, 'tools');
    await shot(page, 'tools');
    await page.getByRole('link', { name: 'Greet' }).click();
    await page.getByRole('heading', { level: 1, name: 'Greet' }).waitFor();
    await page.getByLabel('name *').fill('Console');
    await page.getByRole('button', { name: 'Call greet' }).click();
    const cost = page.getByRole('row', { name: /x-quota-cost/ });
    await cost.waitFor();
    expect((await cost.innerText()).split(/\s+/)).toEqual(['x-quota-cost', '1']);
    expect(await page.getByLabel('Answer body').innerText()).toContain('Hello, Console');
    await accessible(page, 'tool');
    await shot(page, 'tool');
  });

  it("checks the tool form's required fields before sending, and shows a 400's problems by field", async () => {
    await visit(page, '/tools/greet', 'Greet');
    const name = page.getByLabel('name *');
    const times = page.getByLabel('times');
    const sent = () => urls.filter((url) => url.endsWith('/api/v1/services/greet')).length;
    const before = sent();
    await name.fill('');
    await page.getByRole('button', { name: 'Call greet' }).click();
    await page.getByText('A required field is blank: nothing was sent.').waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(`document.activeElement.getAttribute('data-field')`)).toBe('name');
    expect(await page.getByText('Required.').count()).toBe(1);
    expect(sent()).toBe(before);

    // The service's 400: its problem under the field it names, the notice in words.
    await name.fill('Console');
    await times.fill('0');
    await page.getByRole('button', { name: 'Call greet' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Error 400' });
    await alert.waitFor();
    expect(sent()).toBe(before + 1);
    expect(await alert.innerText()).toContain('The input was refused: see the field times.');
    expect(await alert.innerText()).not.toMatch(/[[{]/);
    expect(await times.getAttribute('aria-invalid')).toBe('true');
    expect(await name.getAttribute('aria-invalid')).toBeNull();
    const problem = await times.getAttribute('aria-describedby');
    const described = await page.locator(`[id="${problem?.split(' ')[0]}"]`).innerText();
    expect(described).toBe('Input should be greater than or equal to 1');
    await accessible(page, 'tool with a 400');
    await shot(page, 'tool-400');
  });

  it('shows principals, the audit trail and searches them', async () => {
    await visit(page, '/principals', 'Principals');
    await page.getByRole('link', { name: 'agent-7' }).click();
    await page.getByRole('heading', { level: 1, name: 'agent-7' }).waitFor();
    await page.getByRole('img', { name: /greet 2/ }).waitFor();
    await accessible(page, 'principal');
    await shot(page, 'principal');
    await visit(page, '/principals', 'Principals');
    await accessible(page, 'principals');
    await shot(page, 'principals');

    await visit(page, '/audit', 'Audit trail');
    await page.getByLabel('Action').selectOption('api_key.revoke');
    await until(async () => {
      const rows = await page.locator('tbody tr').allInnerTexts();
      return rows.length === 1 && rows[0].includes('api_key.revoke');
    });
    await page.getByLabel('Action').selectOption('');
    await until(async () => (await page.locator('tbody tr').count()) > 5);
    await accessible(page, 'audit');
    await shot(page, 'audit');

    await visit(page, '/keys', 'Keys');
    await page.getByLabel('Search').fill('billing');
    await until(async () => {
      const names = await page.locator('tbody tr td:first-child a').allInnerTexts();
      return names.length === 1 && names[0] === 'billing-service';
    });
    await page.getByLabel('Search').fill('');
    await until(async () => (await page.locator('tbody tr td:first-child a').count()) > 3);
    await accessible(page, 'keys');
    await shot(page, 'keys');
  });

  it('shows a key with admin:read only no changing control, and the API refuses a forged change', async () => {
    const reader = await createKey({ name: 'auditor', scopes: ['admin:read'] });
    const target = await createKey({ name: 'target' });
    await signOut(page);
    await signIn(page, reader.key);
    const pages: [string, string][] = [
      ['/', 'Overview'],
      ['/keys', 'Keys'],
      [`/keys/${target.id}`, 'target'],
      ['/principals', 'Principals'],
      ['/invocations', 'Invocations'],
      ['/audit', 'Audit trail'],
      ['/tools/greet', 'Greet'],
      ['/tools', 'Tools'],
    ];
    for (const [path, title] of pages) {
      await visit(page, path, title);
      await page.waitForLoadState('networkidle');
      const buttons = await page.getByRole('button').allInnerTexts();
      expect({ path, changing: buttons.filter((name) => CHANGING.test(name)) }).toEqual({
        path,
        changing: [],
      });
    }
    expect(await page.getByText('This key holds no tool scope').count()).toBe(1);
    // The page's own fetch, with the key the console keeps: what a forged change would send.
    const forged = await page.evaluate(`(async () => {
      const response = await fetch('/api/v1/auth/api-keys/${target.id}', {
        method: 'PATCH',
        headers: {
          Authorization: 'Bearer ' + sessionStorage.getItem('tis-console-key'),
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ enabled: false }),
      });
      return { status: response.status, body: await response.json() };
    })()`);
    expect(forged).toEqual({
      status: 403,
      body: { detail: 'Insufficient permissions for this operation.' },
    });
    expect((await greet(target.key)).status).toBe(200);
    await signOut(page);
    await shot(page, 'sign-in');
    await accessible(page, 'sign-in');
  });

  it('is usable at 360 px: no page scrolls sideways', async () => {
    const narrow = await launchChromium({ width: 360, height: 780 });
    try {
      const small = watch(await narrow.context.newPage());
      const started = await api('/api/v1/services/stepped', t.adminKey, { body: { steps: 4 } });
      steps.release();
      await small.goto(`${base}/console`);
      await small.getByLabel('API key').waitFor();
      await shot(small, 'sign-in');
      await signIn(small, t.adminKey);
      const keyId = (await api('/api/v1/admin/api-keys?q=ci-runner', t.adminKey)).body[0].id;
      const principal = (await api('/api/v1/auth/principals', t.adminKey)).body[0].id;
      const pages: [string, string, string][] = [
        ['/', 'Overview', 'overview'],
        ['/keys', 'Keys', 'keys'],
        [`/keys/${keyId}`, 'ci-runner', 'key'],
        ['/principals', 'Principals', 'principals'],
        [`/principals/${principal}`, 'agent-7', 'principal'],
        ['/invocations', 'Invocations', 'invocations'],
        ['/audit', 'Audit trail', 'audit'],
        ['/tools', 'Tools', 'tools'],
        ['/tools/greet', 'Greet', 'tool'],
      ];
      for (const [path, title, name] of pages) {
        await visit(small, path, title);
        await small.waitForLoadState('networkidle');
        const widths = await small.evaluate<{ scroll: number; client: number }>(
          '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
        );
        expect({ path, ...widths }).toEqual({ path, scroll: widths.client, client: widths.client });
        // What the page does not scroll, a table's region does, and shows it.
        await tablesShowTheyScroll(small, path);
        await accessible(small, `${name} at 360 px`);
        await shot(small, name);
      }
      // The menu opens the navigation at this width.
      await small.getByRole('button', { name: 'Menu' }).click();
      await small.getByRole('link', { name: 'Keys' }).click();
      await small.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
      await api(`/api/v1/invocations/${started.body.id}`, t.adminKey, { method: 'DELETE' });
    } finally {
      await narrow.close();
    }
  });

  it('never puts a key in a URL, localStorage, a cookie or the server log; no policy violation', async () => {
    expect(secrets.size).toBeGreaterThan(3);
    for (const secret of secrets) {
      expect(urls.filter((url) => url.includes(secret))).toEqual([]);
      expect(t.logs.text()).not.toContain(secret);
    }
    expect(urls.some((url) => url.includes('/console'))).toBe(true);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(await browser.context.cookies()).toEqual([]);
    // The log holds no key of any kind (SECRET is global: reset between uses).
    SECRET.lastIndex = 0;
    expect(t.logs.text().match(SECRET)).toBeNull();
    expect(problems).toEqual([]);
  });
});
