import { Clock } from '../../src/kernel/common/clock';
import { LedgerUpkeep } from '../../src/ledger/ledger.upkeep';
import type { LedgerEntry } from '../../src/ledger';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';

const LEDGER = '/api/v1/ledger';
const GREET = '/api/v1/services/greet';
const SECOND = 1000;
const DAY = 86_400_000;
const CSV_HEADER =
  'id,at,subject_kind,subject_id,external_id,run_id,tool,credits,kind,transport,request_id,idempotency_key,invocation_id,source';

/** RFC 4180: records of CRLF-ended lines, fields quoted when they hold `,`, `"` or a line break. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted && c === '"') {
      quoted = false;
    } else if (quoted) {
      field += c;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else {
      field += c;
    }
  }
  expect(field).toBe('');
  expect(record).toEqual([]);
  return records;
}

/** An entry as the CSV export's fields (its subject flattened; null an empty field). */
function csvFields(entry: LedgerEntry): string[] {
  const text = (value: string | number | null) => (value === null ? '' : String(value));
  return [
    entry.id,
    entry.at,
    entry.subject.kind,
    entry.subject.id,
    text(entry.subject.external_id),
    text(entry.run_id),
    entry.tool,
    String(entry.credits),
    entry.kind,
    entry.transport,
    text(entry.request_id),
    text(entry.idempotency_key),
    text(entry.invocation_id),
    text(entry.source),
  ];
}

/**
 * `GET /api/v1/ledger` over real calls (greet and doctor over REST, a run's call, an idempotent
 * call) of keys with and without an external id, on a clock the test moves: the entries and their
 * filters, pages and their cursors, `limit`'s bounds, the 400s of bad parameters (which change
 * nothing), the 403 of a key without admin:read, the whole range as NDJSON and as CSV (RFC 4180),
 * and the purge of the entries older than LEDGER_RETENTION_DAYS.
 */
describe('the ledger over REST (e2e)', () => {
  const T0 = new Date('2031-05-01T10:00:00.000Z');
  const at = (ms: number) => new Date(T0.getTime() + ms);
  const clock = new FakeClock(T0);
  let t: TestApp;
  let keyA: { key: string; id: string };
  let keyB: { key: string; id: string };
  let keyC: { key: string; id: string };
  let runId: string;
  let adminId: string;
  let entries: LedgerEntry[];

  const admin = () => bearer(t.adminKey);
  const greet = async (key: string, headers: Record<string, string> = {}) =>
    t.http().post(GREET).set(bearer(key)).set(headers).send({ name: 'Ada' }).expect(200);
  const ledger = (query: Record<string, string | number> = {}) =>
    t.http().get(LEDGER).query(query).set(admin());

  beforeAll(async () => {
    clock.set(T0);
    t = await startApp({ configure: (b) => b.overrideProvider(Clock).useValue(clock) });
    keyA = await t.createKeyWithId({ name: 'a', external_id: 'cus_A' });
    keyB = await t.createKeyWithId({ name: 'b' });
    keyC = await t.createKeyWithId({ name: 'c', external_id: 'acme, "west"' });
    const me = await t.http().get('/api/v1/auth/me').set(admin());
    adminId = (me.body as { key_id?: string; id?: string }).key_id ?? me.body.id;

    await greet(keyA.key);
    clock.set(at(1 * SECOND));
    await greet(keyB.key);
    clock.set(at(2 * SECOND));
    const run = await t
      .http()
      .post('/api/v1/runs')
      .set(bearer(keyA.key))
      .send({ budget: 10 })
      .expect(201);
    runId = run.body.id;
    await greet(run.body.token as string);
    clock.set(at(3 * SECOND));
    await t.http().post('/api/v1/services/doctor').set(admin()).send({}).expect(200);
    clock.set(at(4 * SECOND));
    await greet(keyC.key, { 'Idempotency-Key': '=2+3,"x"' });
    // Its replay writes nothing.
    await greet(keyC.key, { 'Idempotency-Key': '=2+3,"x"' });
    clock.set(at(5 * SECOND));
    await greet(keyA.key);

    const all = await ledger().expect(200);
    entries = all.body.entries;
  });
  afterAll(async () => {
    await t.close();
  });

  it('holds one entry per counted call, oldest first, each as the documentation shows it', () => {
    expect(entries.map((e) => [e.subject.id, e.tool, e.at])).toEqual([
      [keyA.id, 'greet', at(0).toISOString()],
      [keyB.id, 'greet', at(1 * SECOND).toISOString()],
      [keyA.id, 'greet', at(2 * SECOND).toISOString()],
      [adminId, 'doctor', at(3 * SECOND).toISOString()],
      [keyC.id, 'greet', at(4 * SECOND).toISOString()],
      [keyA.id, 'greet', at(5 * SECOND).toISOString()],
    ]);
    expect(entries[0]).toEqual({
      id: expect.stringMatching(/^le_[0-9a-f]{32}$/),
      at: at(0).toISOString(),
      subject: { kind: 'key', id: keyA.id, external_id: 'cus_A' },
      run_id: null,
      tool: 'greet',
      credits: 1,
      kind: 'charge',
      transport: 'rest',
      request_id: expect.any(String),
      idempotency_key: null,
      invocation_id: null,
      source: null,
    });
    expect(entries[0].id.slice(3, 15)).toBe(T0.getTime().toString(16).padStart(12, '0'));
    expect(entries[1].subject.external_id).toBeNull();
    expect(entries[2]).toMatchObject({ run_id: runId, subject: { id: keyA.id } });
    expect(entries[3].subject.external_id).toBeNull();
    expect(entries[4]).toMatchObject({
      subject: { external_id: 'acme, "west"' },
      idempotency_key: '=2+3,"x"',
    });
    expect(new Set(entries.map((e) => e.id)).size).toBe(6);
    expect(new Set(entries.map((e) => e.request_id)).size).toBe(6);
  });

  it('filters by subject, external id, run, tool, and a range from inclusive to exclusive', async () => {
    const ids = (res: { body: { entries: LedgerEntry[] } }) => res.body.entries.map((e) => e.id);
    const [e0, e1, e2, e3, e4, e5] = entries.map((e) => e.id);
    expect(ids(await ledger({ subject: `key:${keyA.id}` }).expect(200))).toEqual([e0, e2, e5]);
    expect(ids(await ledger({ subject: `key:${keyB.id}` }).expect(200))).toEqual([e1]);
    expect(ids(await ledger({ external_id: 'cus_A' }).expect(200))).toEqual([e0, e2, e5]);
    expect(ids(await ledger({ external_id: 'acme, "west"' }).expect(200))).toEqual([e4]);
    expect(ids(await ledger({ run: runId }).expect(200))).toEqual([e2]);
    expect(ids(await ledger({ tool: 'doctor' }).expect(200))).toEqual([e3]);
    expect(ids(await ledger({ tool: 'greet', subject: `key:${keyA.id}`, run: runId }))).toEqual([
      e2,
    ]);
    expect(ids(await ledger({ tool: 'nothing' }).expect(200))).toEqual([]);
    expect(
      ids(
        await ledger({
          from: at(1 * SECOND).toISOString(),
          to: at(3 * SECOND).toISOString(),
        }).expect(200),
      ),
    ).toEqual([e1, e2]);
    // An offset names the same instant.
    expect(ids(await ledger({ from: '2031-05-01T12:00:04+02:00' }).expect(200))).toEqual([e4, e5]);
    expect(ids(await ledger({ to: at(0).toISOString() }).expect(200))).toEqual([]);
    // By default, the last 30 days up to now: [now + 1 ms - 30 days, now + 1 ms).
    try {
      clock.set(at(30 * DAY + 2 * SECOND - 1));
      expect(ids(await ledger().expect(200))).toEqual([e2, e3, e4, e5]);
      clock.set(at(30 * DAY + 2 * SECOND));
      expect(ids(await ledger().expect(200))).toEqual([e3, e4, e5]);
    } finally {
      clock.set(at(5 * SECOND));
    }
    // Now's own entry is in the default range.
    expect(ids(await ledger().expect(200))).toEqual([e0, e1, e2, e3, e4, e5]);
  });

  it('pages with next_cursor, and bounds limit to 1..1000', async () => {
    const seen: LedgerEntry[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const res = await ledger({ limit: 4, ...(cursor ? { cursor } : {}) }).expect(200);
      const body = res.body as { entries: LedgerEntry[]; next_cursor: string | null };
      pages.push(body.entries.length);
      seen.push(...body.entries);
      cursor = body.next_cursor;
      if (cursor) expect(cursor).toBe(body.entries[body.entries.length - 1].id);
    } while (cursor);
    expect(pages).toEqual([4, 2]);
    expect(seen).toEqual(entries);

    // A last page that is exactly full has no next cursor.
    const exact = await ledger({ limit: 6 }).expect(200);
    expect(exact.body).toEqual({ entries, next_cursor: null });
    const one = await ledger({ limit: 1 }).expect(200);
    expect(one.body).toEqual({ entries: entries.slice(0, 1), next_cursor: entries[0].id });
    expect((await ledger({ limit: 1000 }).expect(200)).body.entries).toEqual(entries);
    // 100 by default: all six, and no next page.
    expect((await ledger().expect(200)).body.next_cursor).toBeNull();
  });

  it('answers 400 {detail} to a bad from, to, subject, cursor or limit, and changes nothing', async () => {
    const bad: [Record<string, string | number>, string][] = [
      [{ from: 'yesterday' }, 'from'],
      [{ from: '2031-05-01' }, 'from'],
      [{ from: '2031-05-01T10:00:00' }, 'from'],
      [{ to: '2031-13-01T00:00:00Z' }, 'to'],
      [{ to: '' }, 'to'],
      [{ from: at(2 * SECOND).toISOString(), to: at(1 * SECOND).toISOString() }, 'from'],
      [{ subject: keyA.id }, 'subject'],
      [{ subject: 'key:key_XYZ' }, 'subject'],
      [{ subject: 'run:run_0193f5a2c4e1c0ffee0123456789abcd' }, 'subject'],
      [{ cursor: 'abc' }, 'cursor'],
      [{ cursor: `${entries[0].id}0` }, 'cursor'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 1001 }, 'limit'],
      [{ limit: 'many' }, 'limit'],
      [{ limit: 2.5 }, 'limit'],
    ];
    for (const [query, name] of bad) {
      const res = await ledger(query);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.body).toEqual({
        detail: [expect.objectContaining({ loc: ['query', name], type: expect.any(String) })],
      });
    }
    // Twice the same parameter is refused too, not taken as its first.
    const twice = await t.http().get(`${LEDGER}?tool=greet&tool=doctor`).set(admin());
    expect(twice.status).toBe(400);
    // A streamed answer checks its parameters before it starts.
    const streamed = await ledger({ from: 'yesterday' }).set('Accept', 'application/x-ndjson');
    expect(streamed.status).toBe(400);
    expect(streamed.body.detail[0].loc).toEqual(['query', 'from']);

    expect((await ledger().expect(200)).body).toEqual({ entries, next_cursor: null });
  });

  it("answers 403 to a key without admin:read, and to a run's token", async () => {
    const res = await t.http().get(LEDGER).set(bearer(keyA.key));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Insufficient permissions for this operation.' });
    const streamed = await t
      .http()
      .get(LEDGER)
      .set(bearer(keyB.key))
      .set('Accept', 'text/csv')
      .expect(403);
    expect(streamed.text).not.toContain(entries[0].id);
    const run = await t
      .http()
      .post('/api/v1/runs')
      .set(bearer(keyB.key))
      .send({ budget: 1 })
      .expect(201);
    await t
      .http()
      .get(LEDGER)
      .set(bearer(run.body.token as string))
      .expect(403);
    await t.http().get(LEDGER).expect(401);
    expect((await ledger().expect(200)).body.entries).toEqual(entries);
  });

  it('streams the whole range as NDJSON, one entry a line, filters applied', async () => {
    const res = await ledger({ limit: 1 }).set('Accept', 'application/x-ndjson').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const text = res.text;
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    // The whole range, not a page (limit is the JSON pages').
    expect(lines.map((line) => JSON.parse(line) as LedgerEntry)).toEqual(entries);

    const filtered = await ledger({ external_id: 'cus_A' })
      .set('Accept', 'application/x-ndjson')
      .expect(200);
    expect(
      filtered.text
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as LedgerEntry).id),
    ).toEqual([entries[0].id, entries[2].id, entries[5].id]);

    const none = await ledger({ tool: 'nothing' }).set('Accept', 'application/x-ndjson');
    expect(none.status).toBe(200);
    expect(none.text).toBe('');
  });

  it('streams the whole range as CSV (RFC 4180): a header line, one record an entry', async () => {
    const res = await ledger().set('Accept', 'text/csv').expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const text = res.text;
    expect(text.startsWith(`${CSV_HEADER}\r\n`)).toBe(true);
    const [header, ...records] = parseCsv(text);
    expect(header.join(',')).toBe(CSV_HEADER);
    expect(records).toHaveLength(entries.length);
    const [c0, c1, c2, c3, c4, c5] = records;
    expect([c0, c1, c2, c3, c5]).toEqual(
      [entries[0], entries[1], entries[2], entries[3], entries[5]].map(csvFields),
    );
    // A field with a comma or a quote is quoted, its quotes doubled; a field a spreadsheet would
    // run as a formula is led by a quote.
    expect(c4).toEqual(csvFields({ ...entries[4], idempotency_key: `'=2+3,"x"` }));
    expect(text).toContain(`,"acme, ""west""",`);
    expect(text).toContain(`,"'=2+3,""x""",`);
    // Every record is ended by CRLF, and no line break is bare.
    expect(text.split('\r\n')).toHaveLength(entries.length + 2);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);

    const filtered = await ledger({ subject: `key:${keyB.id}` })
      .set('Accept', 'text/csv')
      .expect(200);
    expect(parseCsv(filtered.text)).toEqual([CSV_HEADER.split(','), csvFields(entries[1])]);
    const none = await ledger({ tool: 'nothing' }).set('Accept', 'text/csv').expect(200);
    expect(none.text).toBe(`${CSV_HEADER}\r\n`);
  });

  it('answers a JSON page to any other Accept', async () => {
    const res = await ledger({ limit: 2 }).set('Accept', 'application/json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ entries: entries.slice(0, 2), next_cursor: entries[1].id });
  });
});

/**
 * The purge: entries older than LEDGER_RETENTION_DAYS are forgotten by the server's upkeep, on a
 * clock the test moves; the newer ones stay.
 */
describe('the ledger kept LEDGER_RETENTION_DAYS (e2e)', () => {
  const T0 = new Date('2031-05-01T10:00:00.000Z');
  const clock = new FakeClock(T0);
  let t: TestApp;

  beforeEach(async () => {
    clock.set(T0);
    t = await startApp({
      env: { LEDGER_RETENTION_DAYS: '2' },
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    });
  });
  afterEach(async () => {
    await t.close();
  });

  it('forgets the entries older than the retention, and keeps the others', async () => {
    const key = await t.createKey({ name: 'a', external_id: 'cus_A' });
    const greet = () => t.http().post(GREET).set(bearer(key)).send({ name: 'Ada' }).expect(200);
    const range = { from: '2031-04-01T00:00:00Z', to: '2031-06-01T00:00:00Z' };
    const kept = async () =>
      (
        (await t.http().get(LEDGER).query(range).set(bearer(t.adminKey)).expect(200)).body as {
          entries: LedgerEntry[];
        }
      ).entries.map((e) => e.at);

    await greet();
    clock.set(new Date(T0.getTime() + DAY));
    await greet();
    await greet();
    expect(await kept()).toHaveLength(3);
    const upkeep = t.app.get(LedgerUpkeep, { strict: false });

    // Two days less a millisecond after the first: kept still.
    clock.set(new Date(T0.getTime() + 2 * DAY - 1));
    await upkeep.purge();
    expect(await kept()).toHaveLength(3);

    // Two days and a millisecond after it: the first is gone, the day after's stay.
    clock.set(new Date(T0.getTime() + 2 * DAY + 1));
    await upkeep.purge();
    const day1 = new Date(T0.getTime() + DAY).toISOString();
    expect(await kept()).toEqual([day1, day1]);

    // Past them too: none left.
    clock.set(new Date(T0.getTime() + 3 * DAY + 1));
    await upkeep.purge();
    expect(await kept()).toEqual([]);
  });
});
