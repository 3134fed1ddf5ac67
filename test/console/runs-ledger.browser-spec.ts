import { readFileSync } from 'node:fs';
import type { Page, Request } from 'playwright-core';
import { listenOnLoopback, startApp, TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import {
  colorsOf,
  ConsoleBrowser,
  contrast,
  tablesShowTheyScroll,
  until,
} from '../support/console-browser';

/** A control that changes something: none may be shown to a key without admin:write. */
const CHANGING = /create|edit|disable|enable|rotate|revoke|cancel|call |save|delete|end|retry/i;

interface Run {
  id: string;
  token: string;
}

/**
 * The console's Runs and Ledger pages in Chromium, against the real service on SQLite: runs with
 * what they spent (the list's bar, a run's spending by tool and its ledger entries), ending a run,
 * the ledger's range, filters, totals and downloads, what an admin:read key sees, and 360 px.
 */
describe('the console: runs and the ledger, in Chromium', () => {
  let t: TestApp;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let c: ConsoleBrowser;
  /** Every secret the test saw: none may reach a URL or the log. */
  const secrets = new Set<string>();
  const runs: Record<'triage' | 'nightly' | 'stopped', Run> = {} as never;
  let agent: { id: string; key: string };
  let billing: { id: string; key: string };

  const call = async (key: string, tool: string, body: object = {}) =>
    expect((await c.api(`/api/v1/services/${tool}`, key, { body })).status).toBe(200);
  const newRun = async (key: string, body: Record<string, unknown>): Promise<Run> => {
    const created = await c.api('/api/v1/runs', key, { body });
    expect(created.status).toBe(201);
    secrets.add(created.body.token);
    return { id: created.body.id, token: created.body.token };
  };
  const newKey = async (body: Record<string, unknown>) => {
    const created = await c.api('/api/v1/auth/api-keys', t.adminKey, { body });
    expect(created.status).toBe(201);
    secrets.add(created.body.key);
    return { id: created.body.id as string, key: created.body.key as string };
  };
  /** The entries of a range as the API streams them (NDJSON). */
  const entriesOf = async (query: string) => {
    const response = await fetch(`${c.base}/api/v1/ledger?${query}`, {
      headers: { Authorization: `Bearer ${t.adminKey}`, Accept: 'application/x-ndjson' },
    });
    return (await response.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { tool: string; credits: number; run_id: string | null });
  };
  /** A table's scrolling region (a card's section may carry the same name). */
  const table = (target: Page, label: string) =>
    target.locator(`.table-wrap[aria-label="${label}"]`);
  const figure = async (label: string) =>
    (await page.locator('.stat', { hasText: label }).locator('.stat-value').innerText()).trim();

  beforeAll(async () => {
    t = await startApp();
    c = new ConsoleBrowser(`http://127.0.0.1:${await listenOnLoopback(t.app)}`);
    secrets.add(t.adminKey);
    agent = await newKey({ name: 'triage-agent', plan: 'pro' });
    billing = await newKey({ name: 'billing-service', plan: 'unlimited' });
    // The billing key's own calls: more entries than a page of the ledger holds.
    for (let i = 0; i < 27; i++) await call(billing.key, 'greet', { name: `invoice ${i}` });
    runs.stopped = await newRun(agent.key, { budget: 10, label: 'flaky test hunt' });
    await call(runs.stopped.token, 'greet', { name: 'hunt' });
    expect(
      (await c.api(`/api/v1/runs/${runs.stopped.id}`, agent.key, { method: 'DELETE' })).status,
    ).toBe(200);
    runs.nightly = await newRun(agent.key, {
      budget: 20,
      label: 'nightly report',
      metadata: { ticket: 'OPS-77' },
    });
    await call(runs.nightly.token, 'greet', { name: 'report' });
    await call(runs.nightly.token, 'greet', { name: 'report' });
    await call(runs.nightly.token, 'config_show');
    runs.triage = await newRun(agent.key, { budget: 5, label: 'triage OPS-1234' });
    for (let i = 0; i < 5; i++) await call(runs.triage.token, 'greet', { name: `issue ${i}` });
    browser = await launchChromium();
    page = c.watch(await browser.context.newPage());
    await c.signIn(page, t.adminKey);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists runs with what each has spent, as a bar of its budget', async () => {
    await c.visit(page, '/runs', 'Runs');
    const bar = (run: Run) => page.locator(`tr[data-run="${run.id}"]`).getByRole('progressbar');
    await bar(runs.triage).waitFor();
    expect(await bar(runs.triage).getAttribute('aria-valuetext')).toBe('5 of 5');
    expect(await bar(runs.nightly).getAttribute('aria-valuetext')).toBe('3 of 20');
    expect(await bar(runs.stopped).getAttribute('aria-valuetext')).toBe('1 of 10');
    expect(await page.locator(`tr[data-run="${runs.stopped.id}"] .badge`).innerText()).toBe(
      'ended',
    );
    // Newest first.
    const order = await page
      .locator('tbody tr[data-run]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run')));
    expect(order).toEqual([runs.triage.id, runs.nightly.id, runs.stopped.id]);
    await c.accessible(page, 'runs');
    await c.shot(page, 'runs');
  });

  it('shows a run: what it spent by tool and its ledger entries', async () => {
    await page.getByRole('link', { name: 'nightly report' }).click();
    await page.getByRole('heading', { level: 1, name: 'nightly report' }).waitFor();
    const byTool = table(page, 'Spent by tool');
    await until(async () => (await byTool.locator('tbody tr').count()) === 2);
    expect(await byTool.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^greet\s+2\s+67 %$/),
      expect.stringMatching(/^config_show\s+1\s+33 %$/),
    ]);
    const entries = table(page, 'Ledger entries of the run');
    await until(async () => (await entries.locator('tbody tr[data-entry]').count()) === 3);
    const tools = await entries.locator('tbody tr[data-entry] td:nth-child(3)').allInnerTexts();
    expect(tools).toEqual(['greet', 'greet', 'config_show']);
    expect(await page.getByText('OPS-77').count()).toBe(1);
    await c.accessible(page, 'run');
    await c.shot(page, 'run');
  });

  it('ends a run after a confirmation: its token is refused from then on', async () => {
    await c.visit(page, `/runs/${runs.triage.id}`, 'triage OPS-1234');
    await page.getByRole('button', { name: 'End run' }).click();
    const dialog = page.getByRole('dialog', { name: 'End “triage OPS-1234”?' });
    await c.accessible(page, 'end-run dialog');
    // Not yet: the confirmation only asks.
    expect((await c.api('/api/v1/runs/' + runs.triage.id, agent.key)).body.status).toBe('active');
    await dialog.getByRole('button', { name: 'End “triage OPS-1234”' }).click();
    await page.locator('.page-head .badge', { hasText: 'ended' }).waitFor();
    expect(await page.getByRole('button', { name: 'End run' }).count()).toBe(0);
    const refused = await c.api('/api/v1/services/greet', runs.triage.token, {
      body: { name: 'x' },
    });
    expect(refused).toEqual({ status: 401, body: { detail: 'Run has ended.' } });
  });

  it('shows a range of the ledger with its totals, by subject, run and tool, a page at a time', async () => {
    await c.visit(page, '/ledger', 'Ledger');
    const all = await entriesOf('');
    expect(all.length).toBeGreaterThan(25);
    await until(async () => (await figure('Entries')) === String(all.length));
    const charged = all.reduce((sum, e) => sum + e.credits, 0);
    expect(await figure('Credits charged')).toBe(String(charged));
    expect(await figure('Net credits')).toBe(String(charged));
    expect(await figure('Refunds')).toBe('0');
    const tools = table(page, 'Totals by tool');
    const config = all.filter((e) => e.tool === 'config_show');
    const configCredits = config.reduce((sum, e) => sum + e.credits, 0);
    expect(await tools.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(new RegExp(`^greet\\s+${all.length - 1}\\s+`)),
      expect.stringMatching(
        new RegExp(`^config_show\\s+1\\s+${configCredits}\\s+0\\s+${configCredits}$`),
      ),
    ]);
    // Oldest first, 25 a page, then the rest.
    const rows = table(page, 'Ledger entries').locator('tbody tr[data-entry]');
    await until(async () => (await rows.count()) === 25);
    await c.accessible(page, 'ledger');
    await c.shot(page, 'ledger');
    await page.getByRole('button', { name: 'Next' }).click();
    await until(async () => (await rows.count()) === all.length - 25);

    // A run's entries; then one tool's of a subject.
    await page.getByLabel('Run', { exact: true }).fill(runs.nightly.id);
    await page.getByRole('button', { name: 'Show' }).click();
    await until(async () => (await figure('Entries')) === '3');
    await until(async () => (await rows.count()) === 3);
    await page.getByLabel('Run', { exact: true }).fill('');
    await page.getByLabel('Subject', { exact: true }).fill(agent.id);
    await page.getByLabel('Tool', { exact: true }).fill('config_show');
    await page.getByRole('button', { name: 'Show' }).click();
    await until(async () => (await figure('Entries')) === '1');
    expect(await figure('Credits charged')).toBe('1');
    // A filter that is not one says so, and nothing is asked.
    const asked = c.urls.length;
    await page.getByLabel('Subject', { exact: true }).fill('someone');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('Not a key id (key_…) or a principal id (prn_…).').waitFor();
    expect(await page.getByLabel('Subject', { exact: true }).getAttribute('aria-invalid')).toBe(
      'true',
    );
    expect(c.urls.slice(asked).filter((url) => url.includes('/api/v1/ledger'))).toEqual([]);
  });

  it('downloads the range as CSV and NDJSON: fetched with the key in a header, saved from a Blob', async () => {
    await c.visit(page, '/ledger', 'Ledger');
    await page.getByLabel('Subject', { exact: true }).fill(billing.id);
    await page.getByRole('button', { name: 'Show' }).click();
    await until(async () => (await figure('Entries')) === '27');
    const asked: Request[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/ledger')) asked.push(request);
    });
    for (const [button, accept] of [
      ['Download CSV', 'text/csv'],
      ['Download NDJSON', 'application/x-ndjson'],
    ]) {
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: button }).click(),
      ]);
      expect(file.url()).toMatch(/^blob:/);
      expect(file.suggestedFilename()).toMatch(accept === 'text/csv' ? /\.csv$/ : /\.ndjson$/);
      const saved = readFileSync(await file.path(), 'utf8');
      const request = asked.find((r) => r.headers()['accept'] === accept);
      expect(request?.headers()['authorization']).toBe(`Bearer ${t.adminKey}`);
      expect(request?.url()).not.toContain(t.adminKey);
      const fromApi = await fetch(request!.url(), {
        headers: { Authorization: `Bearer ${t.adminKey}`, Accept: accept },
      });
      expect(saved).toBe(await fromApi.text());
      const lines = saved.split(accept === 'text/csv' ? '\r\n' : '\n').filter(Boolean);
      expect(lines).toHaveLength(accept === 'text/csv' ? 28 : 27);
    }
  });

  it('shows an admin:read key no changing control, and the API refuses a forged end of a run', async () => {
    const reader = await newKey({ name: 'auditor', scopes: ['admin:read'] });
    const other = c.watch(await browser.context.newPage());
    await c.signIn(other, reader.key);
    for (const [path, title] of [
      ['/runs', 'Runs'],
      [`/runs/${runs.nightly.id}`, 'nightly report'],
      ['/ledger', 'Ledger'],
    ]) {
      await c.visit(other, path, title);
      await other.waitForLoadState('networkidle');
      const buttons = await other.getByRole('button').allInnerTexts();
      expect({ path, changing: buttons.filter((name) => CHANGING.test(name)) }).toEqual({
        path,
        changing: [],
      });
    }
    // Downloading reads: an admin:read key may.
    expect(await other.getByRole('button', { name: 'Download CSV' }).count()).toBe(1);
    const forged = await other.evaluate(`(async () => {
      const response = await fetch('/api/v1/runs/${runs.nightly.id}', {
        method: 'DELETE',
        headers: { Authorization: 'Bearer ' + sessionStorage.getItem('tis-console-key') },
      });
      return { status: response.status, body: await response.json() };
    })()`);
    expect(forged).toEqual({
      status: 403,
      body: { detail: 'Insufficient permissions for this operation.' },
    });
    expect((await c.api(`/api/v1/runs/${runs.nightly.id}`, t.adminKey)).body.status).toBe('active');
    await other.close();
  });

  it('at 360 px: pages fit, a table scrolls inside its card with a shade, the Menu button keeps its contrast', async () => {
    const narrow = await launchChromium({ width: 360, height: 780 });
    try {
      const small = c.watch(await narrow.context.newPage());
      await c.signIn(small, t.adminKey);
      for (const [path, title, name] of [
        ['/runs', 'Runs', 'runs'],
        [`/runs/${runs.nightly.id}`, 'nightly report', 'run'],
        ['/ledger', 'Ledger', 'ledger'],
      ]) {
        await c.visit(small, path, title);
        await small.waitForLoadState('networkidle');
        await c.fitsTheWidth(small, path);
        await tablesShowTheyScroll(small, path);
        await c.accessible(small, `${name} at 360 px`);
        await c.shot(small, name);
      }

      await c.visit(small, '/runs', 'Runs');
      const region = table(small, 'Runs');
      await region.locator('tbody tr[data-run]').first().waitFor();
      // Code run in the page, written as text: this project's types have no DOM.
      const inRegion = <T>(code: string) =>
        small.evaluate<T>(
          `((el) => (${code}))(document.querySelector('.table-wrap[aria-label="Runs"]'))`,
        );
      const box = await inRegion<Record<string, unknown>>(`{
        hidden: el.scrollWidth - el.clientWidth,
        overflow: getComputedStyle(el).overflowX,
        tabIndex: el.tabIndex,
      }`);
      expect(box).toMatchObject({ hidden: expect.any(Number), overflow: 'auto', tabIndex: 0 });
      expect(box.hidden).toBeGreaterThan(0);
      const shades = () =>
        inRegion<Record<string, string>>(`{
          start: getComputedStyle(el.parentElement, '::before').opacity,
          end: getComputedStyle(el.parentElement, '::after').opacity,
          image: getComputedStyle(el.parentElement, '::after').backgroundImage,
        }`);
      // At the start: a shade on the right, where columns are hidden.
      await until(async () => (await shades()).end === '1');
      expect(await shades()).toMatchObject({
        start: '0',
        image: expect.stringContaining('gradient'),
      });
      // By keyboard: focused, the region scrolls; now columns are hidden on the left too.
      await region.focus();
      await small.keyboard.press('ArrowRight');
      await until(async () => (await inRegion<number>('el.scrollLeft')) > 0);
      await until(async () => (await shades()).start === '1');
      await inRegion('el.scrollTo({ left: el.scrollWidth })');
      await until(async () => JSON.stringify(await shades()).includes('"end":"0"'));

      // The Menu button: light on dark at rest, hovered, focused and open.
      const menu = small.getByRole('button', { name: 'Menu' });
      await small.evaluate('window.scrollTo(0, 0)');
      const readable = async (state: string) => {
        const { fg, bg } = await colorsOf(small, '.topbar .button');
        expect({ state, fg, bg, ratio: contrast(fg, bg) >= 4.5 }).toEqual({
          state,
          fg,
          bg,
          ratio: true,
        });
      };
      await readable('at rest');
      await menu.hover();
      await readable('hovered');
      // Focused by keyboard, from a fresh page: the skip link, then the menu.
      await c.visit(small, '/runs', 'Runs');
      await small.mouse.move(180, 600);
      await small.keyboard.press('Tab');
      await small.keyboard.press('Tab');
      expect(
        await small.evaluate(`document.querySelector('.topbar .button').matches(':focus-visible')`),
      ).toBe(true);
      await readable('focused');
      await small.keyboard.press('Enter');
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await readable('open');
    } finally {
      await narrow.close();
    }
  });

  // Last but one: its 26 runs would fill the pages photographed above.
  it('pages runs by cursor, filtered by parent and status', async () => {
    const batch = await newKey({ name: 'batch', rate_limit: 1000 });
    const made: string[] = [];
    for (let i = 0; i < 26; i++)
      made.push((await newRun(batch.key, { budget: 1, label: `b${i}` })).id);
    await c.visit(page, '/runs', 'Runs');
    await page.getByLabel('Parent', { exact: true }).fill('someone');
    await page.getByText('Not a key id (key_…) or a principal id (prn_…).').waitFor();
    // The filter applies a moment after the typing stops: its answer is waited for.
    const filtered = page.waitForResponse((r) => r.url().includes(`parent=${batch.id}`));
    await page.getByLabel('Parent', { exact: true }).fill(batch.id);
    await filtered;
    const ids = () =>
      page
        .locator('tbody tr[data-run]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run')));
    const newestFirst = [...made].reverse();
    await until(
      async () => JSON.stringify(await ids()) === JSON.stringify(newestFirst.slice(0, 25)),
    );
    await page.getByRole('button', { name: 'Next' }).click();
    await until(async () => JSON.stringify(await ids()) === JSON.stringify(newestFirst.slice(25)));
    await page.getByText('Page 2').waitFor();
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous' }).click();
    await until(async () => (await ids()).length === 25);
    await page.getByLabel('Parent', { exact: true }).fill(agent.id);
    await page.getByLabel('Status', { exact: true }).selectOption('ended');
    await until(async () => {
      const shown = await ids();
      return (
        shown.length === 2 && shown.includes(runs.triage.id) && shown.includes(runs.stopped.id)
      );
    });
  });

  it('never puts a key or a token in a URL or the log; no policy violation', async () => {
    for (const secret of secrets) {
      expect(c.urls.filter((url) => url.includes(secret))).toEqual([]);
      expect(t.logs.text()).not.toContain(secret);
    }
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(c.problems).toEqual([]);
  });
});
