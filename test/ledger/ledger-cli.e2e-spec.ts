import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Clock } from '../../src/kernel/common/clock';
import type { LedgerEntry } from '../../src/ledger';
import { bearer, startApp, TestApp } from '../support/app';
import { CLI_TIMEOUT_MS, runCli } from '../support/cli';
import { FakeClock } from '../support/fake-clock';
import { narrowGate, probe, RuntimeToolsModule } from '../support/runtime-tools.module';

const GREET = '/api/v1/services/greet';
const SECOND = 1000;
const RANGE = ['--from', '2031-05-01T00:00:00Z', '--to', '2031-05-02T00:00:00Z'];
const CSV_HEADER =
  'id,at,subject_kind,subject_id,external_id,run_id,tool,credits,kind,transport,request_id,idempotency_key,invocation_id,source';

/** The shape of Stripe's `POST /v1/billing/meter_events` body, from its API reference. */
const STRIPE_METER_EVENT = JSON.parse(
  readFileSync(join(__dirname, '..', 'fixtures', 'stripe-meter-event.json'), 'utf8'),
) as Record<string, unknown>;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await read();
    if (done(value) || i === 200) return value;
    await new Promise((wake) => setTimeout(wake, 50));
  }
}

/**
 * `ledger export` of the compiled CLI on the store a running server filled by real calls (greets of
 * keys with and without an external id, a run's calls, a queued call refunded when its run ended),
 * on a clock the test moves: NDJSON equal to the REST API's entries, CSV with its header line,
 * Stripe Billing Meter events of the shape Stripe's API reference gives
 * (test/fixtures/stripe-meter-event.json) with refunds and charges of subjects without an
 * external id left out and counted on stderr, filters, and a bad `--from` refused with exit code 2.
 */
describe('ledger export, the CLI (e2e)', () => {
  const T0 = new Date('2031-05-01T10:00:00.700Z');
  const at = (ms: number) => new Date(T0.getTime() + ms);
  const clock = new FakeClock(T0);
  let t: TestApp;
  let keyA: { key: string; id: string };
  let keyB: { key: string; id: string };
  let entries: LedgerEntry[];

  const cli = (...args: string[]) => runCli(['ledger', 'export', ...args], { DATA_DIR: t.dataDir });

  beforeAll(async () => {
    clock.set(T0);
    t = await startApp({
      imports: [RuntimeToolsModule],
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    });
    keyA = await t.createKeyWithId({ name: 'a', external_id: 'cus_NffrFeUfNV2Hib' });
    keyB = await t.createKeyWithId({ name: 'b' });
    const greet = (key: string) =>
      t.http().post(GREET).set(bearer(key)).send({ name: 'Ada' }).expect(200);

    await greet(keyA.key);
    clock.set(at(1 * SECOND));
    await greet(keyB.key);
    clock.set(at(2 * SECOND));
    // A run of A's: one call of `narrow` holds its one slot, the next waits in its queue; the run
    // ends, and the queued call is cancelled and refunded (docs/long-running-calls.md).
    const run = await t
      .http()
      .post('/api/v1/runs')
      .set(bearer(keyA.key))
      .send({ budget: 10 })
      .expect(201);
    const token = run.body.token as string;
    probe.reset();
    narrowGate.close();
    const holder = t
      .http()
      .post('/api/v1/services/narrow')
      .set(bearer(token))
      .send({ label: 'holder' })
      .then((res) => res);
    await until(
      () => Promise.resolve(probe.narrowRuns),
      (runs) => runs >= 1,
    );
    clock.set(at(3 * SECOND));
    const queued = await t
      .http()
      .post('/api/v1/services/narrow')
      .set(bearer(token))
      .set('Prefer', 'respond-async')
      .send({ label: 'queued' });
    expect([queued.status, queued.body.status]).toEqual([202, 'queued']);
    clock.set(at(4 * SECOND));
    await t.http().delete(`/api/v1/runs/${run.body.id}`).set(bearer(keyA.key)).expect(200);
    narrowGate.release();
    expect((await holder).status).toBe(200);
    clock.set(at(5 * SECOND));
    await greet(keyA.key);

    entries = (
      await until(
        async () =>
          (
            await t
              .http()
              .get('/api/v1/ledger')
              .query({ from: RANGE[1], to: RANGE[3] })
              .set(bearer(t.adminKey))
          ).body as { entries: LedgerEntry[] },
        (page) => page.entries.some((e) => e.kind === 'refund'),
      )
    ).entries;
  });
  afterAll(async () => {
    narrowGate.release();
    await t.close();
  });

  it('holds the calls and the refund the test made', () => {
    expect(entries.map((e) => [e.subject.id, e.tool, e.kind, e.credits])).toEqual([
      [keyA.id, 'greet', 'charge', 1],
      [keyB.id, 'greet', 'charge', 1],
      [keyA.id, 'narrow', 'charge', 1],
      [keyA.id, 'narrow', 'charge', 1],
      [keyA.id, 'narrow', 'refund', -1],
      [keyA.id, 'greet', 'charge', 1],
    ]);
    expect(entries[4]).toMatchObject({ run_id: entries[3].run_id, invocation_id: /^inv_/ });
  });

  it(
    'exports NDJSON and CSV of a range, filtered or not, as the REST API reads it',
    async () => {
      const ndjson = await cli(...RANGE);
      expect({ code: ndjson.code, stderr: ndjson.stderr }).toEqual({ code: 0, stderr: '' });
      expect(ndjson.stdout.endsWith('\n')).toBe(true);
      expect(
        ndjson.stdout
          .slice(0, -1)
          .split('\n')
          .map((line) => JSON.parse(line) as LedgerEntry),
      ).toEqual(entries);

      const csv = await cli(...RANGE, '--format', 'csv', '--subject', `key:${keyB.id}`);
      expect({ code: csv.code, stderr: csv.stderr }).toEqual({ code: 0, stderr: '' });
      const b = entries[1];
      expect(csv.stdout).toBe(
        `${CSV_HEADER}\r\n` +
          [
            b.id,
            b.at,
            'key',
            keyB.id,
            '',
            '',
            'greet',
            '1',
            'charge',
            'rest',
            b.request_id,
            '',
            '',
            '',
          ].join(',') +
          '\r\n',
      );

      const tool = await cli(...RANGE, '--tool', 'narrow', '--run', entries[2].run_id!);
      expect(tool.stdout.trim().split('\n')).toHaveLength(3);
      // From inclusive, to exclusive.
      const bounded = await cli('--from', entries[1].at, '--to', entries[5].at);
      expect(
        bounded.stdout
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as LedgerEntry).id),
      ).toEqual(entries.slice(1, 5).map((e) => e.id));
    },
    CLI_TIMEOUT_MS,
  );

  it(
    "exports Stripe Billing Meter events of the reference's shape, leaving refunds and subjects without an external id out",
    async () => {
      const stripe = await cli(
        ...RANGE,
        '--format',
        'stripe-meter-events',
        '--event-name',
        'tool_credits',
      );
      expect(stripe.code).toBe(0);
      expect(stripe.stderr).toBe(
        'skipped: 1 refunds (a meter takes no negative value), ' +
          '1 charges of subjects without an external_id\n',
      );
      const events = stripe.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const valid = new Ajv({ strict: false }).compile(STRIPE_METER_EVENT);
      for (const event of events) {
        expect({ event, errors: valid(event) ? null : valid.errors }).toEqual({
          event,
          errors: null,
        });
      }
      const charged = entries.filter((e) => e.kind === 'charge' && e.subject.external_id);
      expect(events).toEqual(
        charged.map((e) => ({
          event_name: 'tool_credits',
          timestamp: Math.floor(Date.parse(e.at) / 1000),
          identifier: e.id,
          payload: { value: '1', stripe_customer_id: 'cus_NffrFeUfNV2Hib' },
        })),
      );
      // Whole seconds: the first call was made at .700.
      expect(events[0].timestamp).toBe(Math.floor(T0.getTime() / 1000));

      // The reference's own example is of the fixture's shape (the fixture checks what it says).
      const [example] = STRIPE_METER_EVENT.examples as unknown[];
      expect(valid(example)).toBe(true);
      expect(valid({ ...(example as object), timestamp: '1680210639' })).toBe(false);

      // Only B's: nothing to send, its one charge counted.
      const none = await cli(
        ...RANGE,
        '--format',
        'stripe-meter-events',
        '--subject',
        `key:${keyB.id}`,
      );
      expect(none).toEqual({
        code: 0,
        stdout: '',
        stderr:
          'skipped: 0 refunds (a meter takes no negative value), ' +
          '1 charges of subjects without an external_id\n',
      });
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'refuses a bad --from with exit code 2 and a line that says what is wrong',
    async () => {
      const bad = await cli('--from', 'yesterday', '--to', RANGE[3]);
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toMatch(/from/);
      expect(bad.stderr).toMatch(/RFC 3339/);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    },
    CLI_TIMEOUT_MS,
  );
});
