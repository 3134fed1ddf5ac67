import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { until } from '../support/runtime-instance';
import { deliveriesWhen, signedWith, WebhookReceiver } from '../support/webhook-receiver';

const HOOKS = '/api/v1/webhooks';
const DAY = 86_400_000;

/**
 * What takes days, on a clock the test moves: an endpoint failing every delivery for 5 days is
 * disabled, and deliveries are forgotten after 30 days. (Signed at the test's clock: the
 * signatures are checked by the webhooks' other specs.)
 */
describe('webhooks over days (e2e)', () => {
  const T0 = new Date('2031-05-01T10:00:00.000Z');
  const clock = new FakeClock(T0);
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    clock.set(T0);
    receiver = await WebhookReceiver.start();
    t = await startApp({
      // One retry, a second after a failure: the test's clock decides when it is due.
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_SCHEDULE: '1' },
      configure: (builder) => builder.overrideProvider(Clock).useValue(clock),
    });
  });
  afterEach(async () => {
    await t.close();
    await receiver.close();
  });

  const admin = () => bearer(t.adminKey);
  const endpoint = async () =>
    (
      await t
        .http()
        .post(HOOKS)
        .set(admin())
        .send({ url: receiver.url, events: ['*'] })
        .expect(201)
    ).body as { id: string; secret: string };
  const at = (ms: number) => new Date(T0.getTime() + ms);

  /** The endpoint's view once `done` holds of it (read for 10 s at most). */
  const viewWhen = (id: string, done: (body: Record<string, unknown>) => boolean) =>
    until(
      async () =>
        (await t.http().get(`${HOOKS}/${id}`).set(admin())).body as Record<string, unknown>,
      done,
      10_000,
    );

  it('disables an endpoint that failed every delivery for 5 days, and says so in doctor', async () => {
    const { id } = await endpoint();
    receiver.answer(...Array.from({ length: 10 }, () => ({ status: 500 })));
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    await receiver.waitFor(1);
    // The receiver has the attempt before the service has its answer and records the failure.
    const view = await viewWhen(id, (body) => body.failing_since !== null);
    expect(view).toMatchObject({ enabled: true, failing_since: T0.toISOString() });

    // Four days on: failing still, not yet disabled.
    clock.set(new Date(T0.getTime() + 4 * DAY));
    await deliveriesWhen(t, id, (list) => list[0]?.status === 'failed');
    expect((await t.http().get(`${HOOKS}/${id}`).set(admin())).body.enabled).toBe(true);

    // Five days after its first failure, a failed attempt disables it.
    clock.set(new Date(T0.getTime() + 5 * DAY));
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    await receiver.waitFor(3);
    const disabled = await viewWhen(id, (body) => body.enabled === false);
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    // Its pending retry is not sent to a disabled endpoint.
    clock.set(new Date(T0.getTime() + 5 * DAY + 60_000));
    const [last] = await deliveriesWhen(t, id, (list) => list[0]?.status === 'failed');
    expect(last.error).toBe('The endpoint is disabled.');
    expect(receiver.received).toHaveLength(3);
    const doctor = await t.http().post('/api/v1/services/doctor').set(admin()).send({});
    expect(doctor.body.checks).toContainEqual(
      expect.objectContaining({
        name: 'webhooks',
        status: 'warn',
        message: expect.stringContaining(`${id} was disabled after 5 days of failed deliveries`),
      }),
    );
  });

  it('forgets deliveries 30 days old, none younger', async () => {
    const { id } = await endpoint();
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    const [old] = await deliveriesWhen(t, id, (list) => list[0]?.status === 'succeeded');
    clock.set(new Date(T0.getTime() + 29 * DAY));
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    const [young] = await deliveriesWhen(
      t,
      id,
      (list) => list.length === 2 && list[0].status === 'succeeded',
    );
    // The hourly purge, past 30 days of the first.
    clock.set(new Date(T0.getTime() + 30 * DAY + 3_600_000));
    const kept = await deliveriesWhen(t, id, (list) => list.length === 1);
    expect(kept.map((d) => d.id)).toEqual([young.id]);
    expect(kept.map((d) => d.id)).not.toContain(old.id);
  });

  it('keeps each rotated-out secret signing until its own grace ends, two of them at once', async () => {
    const { id, secret: original } = await endpoint();
    const rotate = async (grace_seconds: number) =>
      (
        await t
          .http()
          .post(`${HOOKS}/${id}/rotate-secret`)
          .set(admin())
          .send({ grace_seconds })
          .expect(200)
      ).body as { secret: string; previous_secret_expires_at: string };
    const first = await rotate(3600);
    expect(first.previous_secret_expires_at).toBe(at(3_600_000).toISOString());
    clock.set(at(600_000));
    const second = await rotate(600);
    expect(second.previous_secret_expires_at).toBe(at(1_200_000).toISOString());
    const view = (await t.http().get(`${HOOKS}/${id}`).set(admin()).expect(200)).body;
    expect(view).toMatchObject({
      previous_secrets: [
        { expires_at: at(1_200_000).toISOString() },
        { expires_at: at(3_600_000).toISOString() },
      ],
      previous_secret_expires_at: at(3_600_000).toISOString(),
    });

    /** The secrets whose signature the next delivery carries, of the three. */
    const signers = async (n: number) => {
      await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
      const hook = (await receiver.waitFor(n))[n - 1];
      // Recorded before the clock moves on past its claim's lease (else it would be sent again).
      await deliveriesWhen(t, id, (list) => list.every((d) => d.status === 'succeeded'));
      const secrets = { original, first: first.secret, second: second.secret };
      const signed = Object.entries(secrets).filter(([, secret]) => signedWith(hook, secret));
      return [signed.map(([name]) => name), hook.headers['webhook-signature'].split(' ').length];
    };
    expect(await signers(1)).toEqual([['original', 'first', 'second'], 3]);
    // The second rotation's grace is over, the first's is not.
    clock.set(at(1_800_000));
    expect(await signers(2)).toEqual([['original', 'second'], 2]);
    clock.set(at(7_200_000));
    expect(await signers(3)).toEqual([['second'], 1]);
    const after = (await t.http().get(`${HOOKS}/${id}`).set(admin()).expect(200)).body;
    expect(after).toMatchObject({ previous_secrets: [], previous_secret_expires_at: null });
  });
});
