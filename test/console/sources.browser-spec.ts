import type { Page } from 'playwright-core';
import { listenOnLoopback, startApp, tempDataDir, TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import { writeConfigFile } from '../support/config';
import { ConsoleBrowser, tablesShowTheyScroll, until } from '../support/console-browser';
import { HttpUpstream, startSdk1Http } from '../support/upstreams';

/** A control that changes something: none may be shown to a key without admin:write. */
const CHANGING = /create|add |edit|refresh|remove|delete|save|disable|enable/i;
const TOKEN = 'upstream-token-typed-in-the-console';

/**
 * The console's Sources pages in Chromium, against the real service on SQLite and a real upstream
 * (the SDK 1.x MCP server over Streamable HTTP): a source added through the form (its problems
 * checked first, a refused URL's reason shown), ready with its tools, its token sent upstream and
 * shown nowhere, changed, refreshed and removed; a CONFIG_FILE source read-only; what an
 * admin:read key sees; 360 px.
 */
describe('the console: sources, in Chromium', () => {
  let t: TestApp;
  let upstream: HttpUpstream;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let c: ConsoleBrowser;
  /** The POSTs, PATCHes and DELETEs the browser sent, as `METHOD path`. */
  const changes: string[] = [];

  const table = (label: string) => page.locator(`.table-wrap[aria-label="${label}"]`);
  const view = async (name: string) =>
    (await c.api(`/api/v1/sources/${name}`, t.adminKey)).body as {
      state: string;
      refreshed_at: string | null;
      tools: { name: string; cost: number }[];
    };
  const toolRow = (name: string) => table('Tools of the source').locator(`tr[data-tool="${name}"]`);

  beforeAll(async () => {
    upstream = await startSdk1Http();
    const dataDir = tempDataDir();
    const config = `sources:\n  catalog:\n    kind: mcp\n    url: ${upstream.url}\n    include: [echo]\n`;
    t = await startApp({
      dataDir,
      env: { CONFIG_FILE: writeConfigFile(dataDir, config), SOURCE_ALLOW_PRIVATE: 'true' },
    });
    c = new ConsoleBrowser(`http://127.0.0.1:${await listenOnLoopback(t.app)}`);
    // On a busy machine an upstream's first answer can take a while: up to about 100 s.
    await until(async () => (await view('catalog')).state === 'ready', 2_000);
    browser = await launchChromium();
    page = c.watch(await browser.context.newPage());
    page.on('request', (request) => {
      if (request.method() !== 'GET') {
        changes.push(`${request.method()} ${new URL(request.url()).pathname}`);
      }
    });
    await c.signIn(page, t.adminKey);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await upstream?.stop();
  });

  it("adds a source: its fields checked first, a refused URL's reason shown, its token shown nowhere", async () => {
    await c.visit(page, '/sources', 'Sources');
    await page.getByRole('button', { name: 'Add source' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a source' });
    const add = dialog.getByRole('button', { name: 'Add source' });
    const sent = changes.length;
    await add.click();
    await dialog.getByText('Required: the source is named by it.').waitFor();
    await dialog.getByText("Required: the server's Streamable HTTP URL.").waitFor();
    expect(await dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Name').fill('Up Stream');
    await dialog.getByLabel('URL').fill('ftp://example.com/mcp');
    await dialog.getByLabel('Cost').fill('-1');
    await add.click();
    await dialog
      .getByText('Lower-case letters, digits and -, a letter first, at most 32.')
      .waitFor();
    await dialog.getByText('A URL: https://…').waitFor();
    await dialog.getByText('A whole number, 0 or more.').waitFor();
    // An OpenAPI document asks for its document and where its operations are called.
    await dialog.getByLabel('Kind').selectOption('openapi');
    await dialog.getByText("Required: the document's URL.").waitFor();
    await dialog.getByText('Required: where its operations are called.').waitFor();
    await dialog.getByLabel('Kind').selectOption('mcp');
    // Nothing was sent while the form had problems.
    expect(changes.slice(sent)).toEqual([]);

    // A URL the service refuses: its 400's reason, in the dialog.
    await dialog.getByLabel('Name').fill('upstream');
    await dialog.getByLabel('URL').fill('http://169.254.169.254/mcp');
    await dialog.getByLabel('Cost').fill('2');
    await add.click();
    const refused = dialog.getByRole('alert');
    await refused.getByText('The source was not added').waitFor();
    expect(await refused.innerText()).toMatch(/The source URL's address 169\.254\.169\.254 is /);
    expect(changes.slice(sent)).toEqual(['POST /api/v1/sources']);
    expect((await c.api('/api/v1/sources/upstream', t.adminKey)).status).toBe(404);

    await dialog.getByLabel('URL').fill(upstream.url);
    await dialog.getByLabel('Prefix').fill('up');
    await dialog.getByLabel('Bearer token').fill(TOKEN);
    expect(await dialog.getByLabel('Bearer token').getAttribute('type')).toBe('password');
    await c.accessible(page, 'add-source dialog');
    await add.click();

    // Its page, which reads it again until it is ready: its tools listed, at the cost given.
    await page.getByRole('heading', { level: 1, name: 'upstream' }).waitFor();
    expect(page.url()).toBe(`${c.base}/console/sources/upstream`);
    await page.locator('dl.facts .badge', { hasText: 'ready' }).waitFor({ timeout: 60_000 });
    await toolRow('up_echo').waitFor();
    expect(await toolRow('up_echo').locator('td').allInnerTexts()).toEqual([
      'up_echo',
      'echo',
      '2',
      'Echoes its text.',
    ]);
    // The upstream's tool whose name no tool can have is left out, and the last error says so.
    expect(await page.getByTestId('last-error').innerText()).toMatch(/^Left out: bad name! \(/);
    const shown = await view('upstream');
    expect(shown).toMatchObject({ state: 'ready', prefix: 'up', origin: 'api', url: upstream.url });
    expect(shown.tools.every(({ cost }) => cost === 2)).toBe(true);

    // The token reaches the upstream, and never the page or the API's view.
    const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    const headers = await c.api('/api/v1/services/up_headers', key, { body: {} });
    expect(JSON.parse(headers.body.content[0].text)).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
    });
    expect(JSON.stringify(shown)).not.toContain(TOKEN);
    expect(JSON.stringify((await c.api('/api/v1/sources', t.adminKey)).body)).not.toContain(TOKEN);
    expect(await page.content()).not.toContain(TOKEN);
    await page.reload();
    await toolRow('up_echo').waitFor();
    expect(await page.content()).not.toContain(TOKEN);
  });

  it('edits the source: only what is filled in is sent, the new cost in its tools and the API', async () => {
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit the source' });
    const save = dialog.getByRole('button', { name: 'Save changes' });
    const sent = changes.length;
    await save.click();
    await dialog.getByText('Nothing to change: fill in at least one field.').waitFor();
    await dialog.getByLabel('Timeout (ms)').fill('5');
    await save.click();
    await dialog.getByText('A whole number from 100 to 3,600,000.').waitFor();
    expect(changes.slice(sent)).toEqual([]);
    await dialog.getByLabel('Timeout (ms)').fill('');
    await dialog.getByLabel('Cost').fill('5');
    await dialog.getByLabel('Exclude').fill('big, pid');
    await c.accessible(page, 'edit-source dialog');
    await save.click();
    await dialog.waitFor({ state: 'detached' });
    expect(changes.slice(sent)).toEqual(['PATCH /api/v1/sources/upstream']);

    await until(async () => (await toolRow('up_echo').locator('td').nth(2).innerText()) === '5');
    await page.locator('dl.facts .badge', { hasText: 'ready' }).waitFor({ timeout: 60_000 });
    expect(await toolRow('up_big').count()).toBe(0);
    expect(await toolRow('up_pid').count()).toBe(0);
    const after = await view('upstream');
    expect(after.tools.every(({ cost }) => cost === 5)).toBe(true);
    expect(after.tools.map(({ name }) => name)).not.toEqual(
      expect.arrayContaining(['up_big', 'up_pid']),
    );
    // The token was kept: the upstream still receives it.
    const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    const headers = await c.api('/api/v1/services/up_headers', key, { body: {} });
    expect(JSON.parse(headers.body.content[0].text).authorization).toBe(`Bearer ${TOKEN}`);

    // A tool's name leads to its own page, which knows it at its new cost.
    await toolRow('up_echo').getByRole('link', { name: 'up_echo' }).click();
    await page.getByText('Echoes its text.').first().waitFor();
    expect(page.url()).toBe(`${c.base}/console/tools/up_echo`);
    await page.goBack();
    await toolRow('up_echo').waitFor();
  });

  it('refreshes: a tool the upstream added since is listed', async () => {
    const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    const before = (await view('upstream')).refreshed_at as string;
    const added = await c.api('/api/v1/services/up_add_tool', key, { body: {} });
    expect(added.status).toBe(200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByText(/^Listed again: \d+ tools\.$/).waitFor();
    await toolRow('up_extra').waitFor();
    expect(await toolRow('up_extra').locator('td').allInnerTexts()).toEqual([
      'up_extra',
      'extra',
      '5',
      'Added at run time.',
    ]);
    expect(Date.parse((await view('upstream')).refreshed_at as string)).toBeGreaterThan(
      Date.parse(before),
    );
    await c.accessible(page, 'source');
    await c.shot(page, 'source');
  });

  it('shows a CONFIG_FILE source read-only: Refresh only, and where it is changed', async () => {
    await c.visit(page, '/sources/catalog', 'catalog');
    await page.getByText('This source is defined in CONFIG_FILE').waitFor();
    await toolRow('catalog_echo').waitFor();
    const buttons = await page.locator('.page-head').getByRole('button').allInnerTexts();
    expect(buttons).toEqual(['Refresh']);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByText('Listed again: 1 tool.').waitFor();
    const forged = await c.api('/api/v1/sources/catalog', t.adminKey, {
      method: 'PATCH',
      body: { cost: 9 },
    });
    expect(forged).toEqual({
      status: 409,
      body: { detail: 'Source catalog is defined in CONFIG_FILE.' },
    });
    await c.accessible(page, 'config source');
  });

  it('lists the sources with their state, tools, origin and last error', async () => {
    await c.visit(page, '/sources', 'Sources');
    const rows = table('Sources').locator('tbody tr[data-source]');
    await until(async () => (await rows.count()) === 2);
    const cells = async (name: string) =>
      table('Sources').locator(`tr[data-source="${name}"] td`).allInnerTexts();
    const { tools } = await view('upstream');
    expect(await cells('catalog')).toEqual([
      `catalog\nMCP server over HTTP\n${upstream.url}`,
      'ready',
      '1',
      'CONFIG_FILE',
      expect.stringMatching(/ago|now/),
      '—',
    ]);
    expect(await cells('upstream')).toEqual([
      `upstream\nMCP server over HTTP\n${upstream.url}`,
      'ready',
      String(tools.length),
      'API',
      expect.stringMatching(/ago|now/),
      expect.stringMatching(/^Left out: bad name! \(/),
    ]);
    await c.accessible(page, 'sources');
    await c.shot(page, 'sources');
  });

  it('shows an admin:read key no changing control', async () => {
    const reader = await t.createKey({ name: 'auditor', scopes: ['admin:read'] });
    const other = c.watch(await browser.context.newPage());
    await c.signIn(other, reader);
    for (const [path, title] of [
      ['/sources', 'Sources'],
      ['/sources/upstream', 'upstream'],
      ['/sources/catalog', 'catalog'],
    ]) {
      await c.visit(other, path, title);
      await other.waitForLoadState('networkidle');
      const buttons = await other.getByRole('button').allInnerTexts();
      expect({ path, changing: buttons.filter((name) => CHANGING.test(name)) }).toEqual({
        path,
        changing: [],
      });
    }
    await other.close();
  });

  it('at 360 px: the pages fit and pass axe', async () => {
    const narrow = await launchChromium({ width: 360, height: 780 });
    try {
      const small = c.watch(await narrow.context.newPage());
      await c.signIn(small, t.adminKey);
      for (const [path, title, name] of [
        ['/sources', 'Sources', 'sources'],
        ['/sources/upstream', 'upstream', 'source'],
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

  it('removes the source after a confirmation: its tools gone, back to the list', async () => {
    await c.visit(page, '/sources/upstream', 'upstream');
    await page.getByRole('button', { name: 'Remove' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove this source?' });
    await c.accessible(page, 'remove-source dialog');
    await dialog.getByRole('button', { name: 'Remove source' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sources' }).waitFor();
    const rows = table('Sources').locator('tbody tr[data-source]');
    await until(async () => (await rows.count()) === 1);
    expect(await rows.first().getAttribute('data-source')).toBe('catalog');
    expect((await c.api('/api/v1/sources/upstream', t.adminKey)).status).toBe(404);
    const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    expect((await c.api('/api/v1/services/up_echo', key, { body: { text: 'x' } })).status).toBe(
      404,
    );
  });

  it('never puts the token or a key in a URL, localStorage or the log; no policy violation', async () => {
    for (const secret of [TOKEN, t.adminKey]) {
      expect(c.urls.filter((url) => url.includes(secret))).toEqual([]);
      expect(t.logs.text()).not.toContain(secret);
    }
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(c.problems).toEqual([]);
  });
});
