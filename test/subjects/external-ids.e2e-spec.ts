import { bearer, startApp, TestApp } from '../support/app';
import { TokenIssuer } from '../support/oauth/token-issuer';
import { freePort } from '../support/redis';

const KEYS = '/api/v1/auth/api-keys';
const PRINCIPALS = '/api/v1/auth/principals';
const TOO_LONG = {
  loc: ['body', 'external_id'],
  msg: 'String should have at most 200 characters',
  type: 'string_too_long',
};
const CONTROL = {
  loc: ['body', 'external_id'],
  msg: 'Value error, Control characters, bidi controls and lone surrogates are not allowed (found U+001B)',
  type: 'value_error',
};

/**
 * The external id of keys and principals (docs/api.md): the customer or account each belongs to,
 * given at creation, changed and cleared by PATCH, kept by lists' `external_id`, held to the rule
 * of a key's name; a principal's from its tokens' OAUTH_EXTERNAL_ID_CLAIM when that is set.
 */
describe('external ids of keys and principals (e2e)', () => {
  describe('keys', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
    });
    afterAll(() => t?.close());

    const create = (body: object) => t.http().post(KEYS).set(bearer(t.adminKey)).send(body);
    const patch = (id: string, body: object) =>
      t.http().patch(`${KEYS}/${id}`).set(bearer(t.adminKey)).send(body);
    const view = async (id: string) =>
      (await t.http().get(`${KEYS}/${id}`).set(bearer(t.adminKey))).body as Record<string, unknown>;

    it('takes one at creation, shows null when none, changes and clears it by PATCH, audited', async () => {
      const given = await create({ name: 'billed', external_id: 'acct_4711' });
      expect(given.status).toBe(201);
      expect(given.body.external_id).toBe('acct_4711');
      const none = await create({ name: 'unbilled' });
      expect(none.body.external_id).toBeNull();
      const id = none.body.id as string;

      const set = await patch(id, { external_id: 'acct_0815' });
      expect(set.status).toBe(200);
      expect(set.body.external_id).toBe('acct_0815');
      expect((await view(id)).external_id).toBe('acct_0815');
      const cleared = await patch(id, { external_id: null });
      expect(cleared.body.external_id).toBeNull();
      expect((await view(id)).external_id).toBeNull();

      const audit = await t.http().get('/api/v1/audit').set(bearer(t.adminKey));
      const updates = (audit.body.entries as Record<string, unknown>[]).filter(
        (e) => e.target === id && e.action === 'api_key.update',
      );
      expect(updates.map((e) => e.details)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ external_id: { from: null, to: 'acct_0815' } }),
          expect.objectContaining({ external_id: { from: 'acct_0815', to: null } }),
        ]),
      );
    });

    it('lists the keys of exactly one external id, a page at a time', async () => {
      const ids: string[] = [];
      for (const external_id of ['cust-a', 'cust-b', 'cust-a', 'CUST-A', 'cust-a']) {
        ids.push((await t.createKeyWithId({ name: `of ${external_id}`, external_id })).id);
      }
      const list = await t
        .http()
        .get(KEYS)
        .query({ external_id: 'cust-a' })
        .set(bearer(t.adminKey));
      expect(list.status).toBe(200);
      expect((list.body as { id: string }[]).map((k) => k.id)).toEqual([ids[0], ids[2], ids[4]]);

      const first = await t
        .http()
        .get(KEYS)
        .query({ external_id: 'cust-a', limit: 2 })
        .set(bearer(t.adminKey));
      expect((first.body as { id: string }[]).map((k) => k.id)).toEqual([ids[0], ids[2]]);
      const link = /<([^>]+)>/.exec(first.headers.link)?.[1] as string;
      expect(link).toContain('external_id=cust-a');
      const next = await t.http().get(link).set(bearer(t.adminKey));
      expect((next.body as { id: string }[]).map((k) => k.id)).toEqual([ids[4]]);

      const nobody = await t
        .http()
        .get(KEYS)
        .query({ external_id: 'nobody' })
        .set(bearer(t.adminKey));
      expect(nobody.body).toEqual([]);
      for (const bad of ['', 'x'.repeat(201), 'tab\there']) {
        const res = await t.http().get(KEYS).query({ external_id: bad }).set(bearer(t.adminKey));
        expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
        expect(res.body.detail[0].loc).toEqual(['query', 'external_id']);
      }
    });

    it('refuses one that is too long, empty or holds control characters, changing nothing', async () => {
      const { id } = await t.createKeyWithId({ name: 'kept', external_id: 'acct_kept' });
      const before = await t.http().get(KEYS).set(bearer(t.adminKey));
      const cases: [unknown, object][] = [
        ['x'.repeat(201), TOO_LONG],
        ['\u001b[2Jpwned', CONTROL],
        [
          '',
          { ...TOO_LONG, msg: 'String should have at least 1 character', type: 'string_too_short' },
        ],
        [42, { loc: ['body', 'external_id'], type: 'string_type' }],
      ];
      for (const [external_id, issue] of cases) {
        for (const res of [
          await create({ name: 'refused', external_id }),
          await patch(id, { external_id }),
        ]) {
          expect({ external_id, status: res.status }).toEqual({ external_id, status: 400 });
          expect(res.body.detail).toEqual([expect.objectContaining(issue)]);
        }
      }
      expect((await t.http().get(KEYS).set(bearer(t.adminKey))).body).toEqual(before.body);
      expect((await view(id)).external_id).toBe('acct_kept');
      // 200 characters of any script are one.
      const long = await patch(id, { external_id: '😀'.repeat(200) });
      expect(long.status).toBe(200);
    });
  });

  describe('principals', () => {
    let issuer: TokenIssuer;
    let base: string;
    let t: TestApp;
    beforeAll(async () => {
      issuer = await TokenIssuer.start();
      base = `http://127.0.0.1:${await freePort()}`;
      t = await startApp({
        env: { PUBLIC_URL: base, OAUTH_ISSUERS: issuer.issuer, OAUTH_EXTERNAL_ID_CLAIM: 'acct' },
      });
    });
    afterAll(async () => {
      await t?.close();
      await issuer?.stop();
    });

    const token = (sub: string, claims: Record<string, unknown> = {}) =>
      issuer.sign({ sub, aud: base, scope: 'services:execute', ...claims });
    const principalOf = async (credential: string) =>
      (await t.http().get('/api/v1/auth/me').set(bearer(credential))).body.principal_id as string;
    const view = async (id: string) =>
      (await t.http().get(`${PRINCIPALS}/${id}`).set(bearer(t.adminKey))).body as Record<
        string,
        unknown
      >;
    const patch = (id: string, body: object) =>
      t.http().patch(`${PRINCIPALS}/${id}`).set(bearer(t.adminKey)).send(body);

    it('takes the external id from the claim, follows it when it changes, ignores one that is none', async () => {
      const id = await principalOf(await token('ada', { acct: 'acct_4711' }));
      expect(await view(id)).toMatchObject({ external_id: 'acct_4711' });
      await principalOf(await token('ada', { acct: 'acct_0815' }));
      expect(await view(id)).toMatchObject({ external_id: 'acct_0815' });
      // Not a label, too long, not text, absent: the record keeps what it has.
      for (const acct of ['bad\u0007bell', 'x'.repeat(201), 42, undefined]) {
        await principalOf(await token('ada', acct === undefined ? {} : { acct }));
        expect(await view(id)).toMatchObject({ external_id: 'acct_0815' });
      }
      const none = await principalOf(await token('bob'));
      expect(await view(none)).toMatchObject({ external_id: null });
    });

    it('sets and clears it by PATCH (audited), the claim winning on the next token, and lists by it', async () => {
      const id = await principalOf(await token('cyd'));
      const set = await patch(id, { external_id: 'acct_set' });
      expect(set.status).toBe(200);
      expect(set.body.external_id).toBe('acct_set');
      const audit = await t.http().get('/api/v1/audit').set(bearer(t.adminKey));
      expect(audit.body.entries[0]).toMatchObject({
        action: 'principal.update',
        target: id,
        details: expect.objectContaining({ external_id: { from: null, to: 'acct_set' } }),
      });
      const listed = await t
        .http()
        .get(PRINCIPALS)
        .query({ external_id: 'acct_set' })
        .set(bearer(t.adminKey));
      expect((listed.body as { id: string }[]).map((p) => p.id)).toEqual([id]);

      const refused = await patch(id, { external_id: 'x'.repeat(201) });
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toEqual([TOO_LONG]);
      expect(await view(id)).toMatchObject({ external_id: 'acct_set' });

      expect((await patch(id, { external_id: null })).body.external_id).toBeNull();
      await patch(id, { external_id: 'acct_set' });
      // A token without the claim leaves the operator's; one with it replaces it.
      await principalOf(await token('cyd'));
      expect(await view(id)).toMatchObject({ external_id: 'acct_set' });
      await principalOf(await token('cyd', { acct: 'acct_claimed' }));
      expect(await view(id)).toMatchObject({ external_id: 'acct_claimed' });
    });
  });
});
