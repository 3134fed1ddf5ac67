import { SignJWT, type CryptoKey } from 'jose';
import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import {
  AuthorizationServer,
  clientCredentialsToken,
  ControlState,
  startAuthorizationServer,
} from '../support/oauth/authorization-server';
import { strayKey } from '../support/oauth/token-issuer';
import { freePort } from '../support/redis';

/**
 * A rotation at the issuer, with OAUTH_JWKS_REFETCH_MS at its default (a minute): the first token
 * signed with a key published after the last fetch is accepted at once, whenever that fetch was
 * (the start-up's included); unknown `kid`s refetch the keys at most once per period.
 */
describe('OAuth: a rotation at the issuer is accepted at once (e2e)', () => {
  const clock = new FakeClock(new Date());
  let as: AuthorizationServer;
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    base = `http://127.0.0.1:${await freePort()}`;
    t = await startApp({
      env: { PUBLIC_URL: base, OAUTH_ISSUERS: as.issuer },
      configure: (builder) => builder.overrideProvider(Clock).useValue(clock),
    });
    // doctor waits for the discovery started with the service (its fetch of the keys).
    await t.http().post('/api/v1/services/doctor').set(bearer(t.adminKey)).send({}).expect(200);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await as?.stop();
  });

  const token = () =>
    clientCredentialsToken(as.issuer, { resource: base, scope: 'services:execute' });
  const greet = (credential: string) =>
    t.http().post('/api/v1/services/greet').set(bearer(credential)).send({ name: 'Ada' });
  const keyFetches = async () => (await as.control('state')).counters.jwksRequests;
  /** A token of the issuer under a `kid` it never published (signed by a key it does not hold). */
  const invented = (kid: string, key: CryptoKey) =>
    new SignJWT({ iss: as.issuer, sub: 'mallory', aud: base, scope: 'services:execute' })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);

  it('accepts a new key at once, and spaces the refetches unknown kids cause', async () => {
    const stray = await strayKey();
    expect((await greet(await token())).status).toBe(200);
    const before = await keyFetches();

    // Published a moment after the start-up's fetch: accepted at once, for one fetch.
    const rotated = await as.control<ControlState>('rotate', { kty: 'RSA' });
    const signedWithNewKey = await token();
    expect((await greet(signedWithNewKey)).status).toBe(200);
    expect(await keyFetches()).toBe(before + 1);
    expect(rotated.jwksKids).toContain(rotated.kids.RSA);

    // A storm of invented kids within the period: refused, and the issuer is not asked again.
    const storm = await Promise.all(
      Array.from({ length: 20 }, (_, i) => invented(`storm-${i}`, stray)),
    );
    const answers = await Promise.all(storm.map((credential) => greet(credential)));
    expect(answers.map((res) => [res.status, res.body])).toEqual(
      storm.map(() => [401, { detail: 'Invalid access token' }]),
    );
    expect(await keyFetches()).toBe(before + 1);

    // A second rotation within the same period waits for it: the refetches are spaced.
    await as.control('rotate', { kty: 'RSA' });
    const second = await token();
    expect((await greet(second)).status).toBe(401);
    expect(await keyFetches()).toBe(before + 1);

    // Once the period is over, the next unknown kid fetches again: the new key is accepted.
    clock.set(new Date(clock.now().getTime() + 60_000));
    expect((await greet(second)).status).toBe(200);
    expect(await keyFetches()).toBe(before + 2);
  });
});
