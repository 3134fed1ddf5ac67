import AxeBuilder from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/**
 * Where the console's screenshots go: `CONSOLE_SCREENSHOTS=docs/console npm run test:console`
 * refreshes the documentation's; by default a folder git ignores.
 */
export const SHOTS = join(
  __dirname,
  '..',
  '..',
  process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console',
);

/** A JSON answer of the API, as a test reads it. */
export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer, as supertest's
  body: any;
}

/**
 * What the console's browser specs share: the API called as a client would (fetch, the key in
 * its header), and the browser watched, signed in, shown pages, checked by axe and photographed.
 * It keeps every URL the browser asked for and every policy violation or script error it reported.
 */
export class ConsoleBrowser {
  /** Every URL the browser asked for. */
  readonly urls: string[] = [];
  /** What the browser's console said of policies and errors. */
  readonly problems: string[] = [];

  constructor(readonly base: string) {}

  async api(
    path: string,
    key: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const response = await fetch(`${this.base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  watch(target: Page): Page {
    target.on('request', (request) => this.urls.push(request.url()));
    target.on('console', (message) => {
      // Chromium logs every 4xx answer as an error: those the tests ask for are not problems.
      if (/Failed to load resource/.test(message.text())) return;
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) {
        this.problems.push(message.text());
      }
    });
    target.on('pageerror', (error) => this.problems.push(String(error)));
    return target;
  }

  async signIn(target: Page, key: string): Promise<void> {
    await target.goto(`${this.base}/console`);
    // The key's field comes first: a paste and Enter sign in.
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

  async visit(target: Page, path: string, ready: string | RegExp): Promise<void> {
    await target.goto(`${this.base}/console${path}`);
    await target.getByRole('heading', { level: 1, name: ready }).waitFor();
  }

  async shot(target: Page, name: string): Promise<void> {
    mkdirSync(SHOTS, { recursive: true });
    const width = target.viewportSize()?.width ?? 0;
    // Lists drawn, fonts settled: nothing left loading.
    await target.waitForLoadState('networkidle');
    // From the top: the navigation where a reader first sees it.
    await target.evaluate('window.scrollTo(0, 0)');
    await target.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }

  /** No serious or critical violation of axe-core's rules (WCAG 2.x A and AA, best practices). */
  async accessible(target: Page, where: string): Promise<void> {
    const { violations } = await new AxeBuilder({ page: target }).analyze();
    const serious = violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${where}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      );
    expect(serious).toEqual([]);
  }

  /** The page scrolls no wider than the window (a narrow screen scrolls tables, not pages). */
  async fitsTheWidth(target: Page, where: string): Promise<void> {
    const widths = await target.evaluate<{ scroll: number; client: number }>(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    );
    expect({ where, ...widths }).toEqual({ where, scroll: widths.client, client: widths.client });
  }
}

interface TableState {
  label: string | null;
  focusable: boolean;
  hides: boolean;
  shaded: boolean;
}

/**
 * Every table of the page that is wider than its card shows so: a shade on the side that hides
 * columns (at the start: the right), in a region a keyboard reaches (the page itself never
 * scrolls sideways: fitsTheWidth).
 */
export async function tablesShowTheyScroll(target: Page, where: string): Promise<number> {
  // Code run in the page, written as text: this project's types have no DOM.
  const read = `[...document.querySelectorAll('.table-wrap')].map((box) => ({
    label: box.getAttribute('aria-label'),
    focusable: box.tabIndex === 0,
    hides: box.scrollWidth - box.clientWidth - box.scrollLeft > 1,
    shaded: getComputedStyle(box.parentElement, '::after').opacity === '1',
  }))`;
  let last: TableState[] = [];
  // The shades follow a resize a frame later: asked again until they agree.
  const tables = await until(async () => {
    last = await target.evaluate<TableState[]>(read);
    return last.every((table) => table.hides === table.shaded) && last;
  }).catch(() => {
    throw new Error(
      `${where}: the tables' shades do not say what they hide: ${JSON.stringify(last)}`,
    );
  });
  for (const table of tables) {
    expect({ where, ...table }).toEqual({ where, ...table, focusable: true });
  }
  return tables.filter((table) => table.hides).length;
}

/**
 * Waits until `check` holds, asking again as the page changes, at most `tries` times (50 ms
 * apart): then fails with what `check` last found, rather than leaving the test to its timeout.
 */
export async function until<T>(
  check: () => Promise<T | undefined | false>,
  tries = 600,
): Promise<T> {
  let found: T | undefined | false;
  for (let i = 0; i < tries; i++) {
    found = await check();
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`condition not met after ${tries} tries: ${JSON.stringify(found)}`);
}

/** WCAG's contrast ratio of two CSS colours `rgb(r, g, b)` (1 to 21). */
export function contrast(foreground: string, background: string): number {
  const luminance = (color: string) => {
    const [r, g, b] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((c) => {
      const s = Number(c) / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a);
  return (light + 0.05) / (dark + 0.05);
}

/**
 * The colour of an element's text and the colour it is drawn on: its own background, else the
 * first ancestor's that is not transparent.
 */
export function colorsOf(target: Page, selector: string): Promise<{ fg: string; bg: string }> {
  // Code run in the page, written as text: this project's types have no DOM.
  return target.evaluate(`(() => {
    const element = document.querySelector(${JSON.stringify(selector)});
    let bg = 'rgba(0, 0, 0, 0)';
    for (let at = element; at; at = at.parentElement) {
      const color = getComputedStyle(at).backgroundColor;
      if (!/rgba\\(.*, 0\\)$|transparent/.test(color)) {
        bg = color;
        break;
      }
    }
    return { fg: getComputedStyle(element).color, bg };
  })()`);
}
