import type { Response } from 'supertest';
import { bearer, startApp, TestApp } from '../support/app';
import { TokenIssuer } from '../support/oauth/token-issuer';
import { WebhookReceiver } from '../support/webhook-receiver';

const PUBLIC_URL = 'http://127.0.0.1:8000';

/** A list route, and how its body holds a page. */
interface List {
  /** The route, with a filter where the list takes one (its `Link` must carry it on). */
  path: string;
  /** The body's field of the items; none: the body is a bare array. */
  items?: string;
  /** The name its cursor had before every list took `cursor` (still read), and in its answer. */
  alias?: { query: string; answer?: string };
}

const LINK = /^<(\/api\/v1\/[^?>]+\?limit=1&cursor=([^&>]+)[^>]*)>; rel="next"$/;

type Item = { id: string | number };
const itemsOf = (list: List, res: Response): Item[] =>
  (list.items ? (res.body as Record<string, Item[]>)[list.items] : res.body) as Item[];

/**
 * One shape of a page for every list (docs/api.md, "Lists and pages"): each takes `limit` and
 * `cursor` and, while a next page remains, answers `Link: <…>; rel="next"` (with the list's
 * filters); a list whose body is an object carries `next_cursor` too (null on the last page),
 * a bare array stays one; a forged cursor is a 400 at `["query", "cursor"]`; the names used
 * before (`before`, `next_before`) still work.
 */
describe('the pages of every list (e2e)', () => {
  let t: TestApp;
  let issuer: TokenIssuer;
  let receiver: WebhookReceiver;
  const lists: List[] = [];

  const get = (path: string) => t.http().get(path).set(bearer(t.adminKey));

  beforeAll(async () => {
    issuer = await TokenIssuer.start();
    receiver = await WebhookReceiver.start();
    t = await startApp({
      env: { PUBLIC_URL, OAUTH_ISSUERS: issuer.issuer, WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    const admin = bearer(t.adminKey);
    // At least two of everything each list shows.
    for (const name of ['first', 'second']) {
      await t.createKey({ name });
      const token = await issuer.sign({ sub: name, aud: PUBLIC_URL, scope: 'services:read' });
      expect((await t.http().get('/api/v1/auth/me').set(bearer(token))).status).toBe(200);
      await t.http().post('/api/v1/runs').set(admin).send({ budget: 5 }).expect(201);
      await t.http().post('/api/v1/services/greet').set(admin).send({ name }).expect(200);
      await t
        .http()
        .post('/api/v1/services/doctor')
        .set(admin)
        .set('Prefer', 'respond-async')
        .send({})
        .expect(202);
      await t
        .http()
        .post('/api/v1/webhooks')
        .set(admin)
        .send({ url: receiver.url, events: ['webhook.test'] })
        .expect(201);
    }
    const endpoint = ((await get('/api/v1/webhooks')).body.webhooks as Item[])[0].id;
    for (let i = 0; i < 2; i++) {
      await t.http().post(`/api/v1/webhooks/${endpoint}/test`).set(admin).expect(202);
    }
    const before = { query: 'before' };
    const both = { query: 'before', answer: 'next_before' };
    lists.push(
      { path: '/api/v1/auth/api-keys' },
      { path: '/api/v1/auth/principals' },
      { path: '/api/v1/admin/api-keys?status=active' },
      { path: '/api/v1/invocations' },
      { path: '/api/v1/admin/invocations' },
      { path: '/api/v1/audit', items: 'entries', alias: before },
      { path: '/api/v1/admin/audit?action=api_key.create', items: 'entries', alias: both },
      { path: '/api/v1/runs?status=active', items: 'runs', alias: before },
      { path: '/api/v1/ledger?tool=greet', items: 'entries' },
      { path: '/api/v1/webhooks', items: 'webhooks' },
      { path: `/api/v1/webhooks/${endpoint}/deliveries`, items: 'deliveries', alias: both },
    );
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await issuer?.stop();
  });

  /** `path` with `query` added to its own. */
  const withQuery = (path: string, query: string) =>
    `${path}${path.includes('?') ? '&' : '?'}${query}`;

  it('pages every list one item at a time by its Link, to the same items as one page', async () => {
    for (const list of lists) {
      const whole = await get(withQuery(list.path, 'limit=100')).expect(200);
      expect({ path: list.path, link: whole.headers.link }).toEqual({ path: list.path });
      const all = itemsOf(list, whole).map((item) => item.id);
      expect({ path: list.path, items: all.length >= 2 }).toEqual({ path: list.path, items: true });
      if (list.items) expect(whole.body.next_cursor).toBeNull();
      else expect(Array.isArray(whole.body)).toBe(true);

      const paged: (string | number)[] = [];
      let res = await get(withQuery(list.path, 'limit=1')).expect(200);
      for (let pages = 1; ; pages++) {
        paged.push(...itemsOf(list, res).map((item) => item.id));
        const link = res.headers.link as string | undefined;
        if (link === undefined) break;
        const [, next, cursor] = LINK.exec(link) ?? [];
        expect({ path: list.path, link }).toEqual({
          path: list.path,
          link: expect.stringMatching(LINK),
        });
        // The filters it was asked with go on to the next page.
        for (const filter of list.path.split('?')[1]?.split('&') ?? [])
          expect(next).toContain(filter);
        if (list.items) expect(res.body.next_cursor).toBe(decodeURIComponent(cursor));
        // A bounded search's last page may hold none (it read on to the end).
        expect(pages).toBeLessThan(all.length + 2);
        res = await get(next).expect(200);
      }
      if (list.items) expect(res.body.next_cursor).toBeNull();
      expect({ path: list.path, paged }).toEqual({ path: list.path, paged: all });
    }
  });

  it('still reads the names used before: `before` for `cursor`, `next_before` beside `next_cursor`', async () => {
    for (const list of lists.filter((l) => l.alias)) {
      const { query, answer } = list.alias!;
      const first = await get(withQuery(list.path, 'limit=1')).expect(200);
      const cursor = first.body.next_cursor as string;
      expect(cursor).toEqual(expect.any(String));
      if (answer) expect(String(first.body[answer])).toBe(cursor);
      const given = answer ? String(first.body[answer]) : cursor;
      const byAlias = await get(withQuery(list.path, `limit=1&${query}=${given}`)).expect(200);
      const byCursor = await get(withQuery(list.path, `limit=1&cursor=${cursor}`)).expect(200);
      expect({ path: list.path, items: itemsOf(list, byAlias) }).toEqual({
        path: list.path,
        items: itemsOf(list, byCursor),
      });
      expect(byAlias.headers.link).toBe(byCursor.headers.link);
    }
  });

  it('answers a cursor the service did not issue with a 400 at ["query", "cursor"]', async () => {
    for (const list of lists) {
      const res = await get(withQuery(list.path, 'cursor=not-issued')).expect(400);
      expect({ path: list.path, detail: res.body.detail }).toEqual({
        path: list.path,
        detail: [expect.objectContaining({ loc: ['query', 'cursor'], type: 'value_error' })],
      });
    }
  });
});
