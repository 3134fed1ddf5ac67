import { createHash } from 'node:crypto';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { ChecksumModule } from './checksum/checksum.module';

interface Invocation {
  status: string;
  progress: { done: number; total: number | null; message: string | null } | null;
  result: unknown;
}

/**
 * The fixture tool of `npm run test:fixture-tool` works as a team's tool would: its defaults, its
 * price, its configuration section, and a long-running call that reports progress. Served alone
 * here (`tools`), so that it runs in every project, the fixture-tool one included.
 */
describe('the fixture tool, checksum (e2e)', () => {
  let t: TestApp;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    const dataDir = tempDataDir();
    t = await startApp({
      dataDir,
      tools: [ChecksumModule],
      env: { CONFIG_FILE: writeConfigFile(dataDir, 'checksum:\n  chunk_bytes: 1024\n') },
    });
    ({ key, id: keyId } = await t.createKeyWithId({ scope_template: 'standard', plan: 'pro' }));
  });
  afterAll(() => t.close());

  const checksum = (body: object, headers: Record<string, string> = {}) =>
    t.http().post('/api/v1/services/checksum').set(bearer(key)).set(headers).send(body);
  const sha = (algorithm: string, data: string | Buffer) =>
    createHash(algorithm).update(data).digest();

  const used = async (): Promise<number> => {
    const usage = await t
      .http()
      .get(`/api/v1/auth/api-keys/${keyId}/usage`)
      .set(bearer(t.adminKey))
      .expect(200);
    return (usage.body as { used: number }).used;
  };

  it('hashes with its defaults (sha256, one round) and costs 3 credits', async () => {
    // The tests run in any order on one key: the call's own credits are what it adds.
    const before = await used();
    const res = await checksum({ text: 'release notes of 2.4.0' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      digest: sha('sha256', 'release notes of 2.4.0').toString('hex'),
      algorithm: 'sha256',
      rounds: 1,
      bytes: 22,
    });
    expect(res.headers['x-quota-cost']).toBe('3');
    expect((await used()) - before).toBe(3);
  });

  it('takes its options, and refuses what its schema does not allow', async () => {
    const res = await checksum({ text: 'é', algorithm: 'sha512', rounds: 3 });
    expect(res.status).toBe(200);
    const expected = sha('sha512', sha('sha512', sha('sha512', 'é')));
    expect(res.body).toEqual({
      digest: expected.toString('hex'),
      algorithm: 'sha512',
      rounds: 3,
      bytes: 2,
    });
    const bad = await checksum({ text: 'x', algorithm: 'md5', rounds: 0 });
    expect(bad.status).toBe(400);
    expect((bad.body.detail as { loc: string[] }[]).map((issue) => issue.loc)).toEqual([
      ['body', 'algorithm'],
      ['body', 'rounds'],
    ]);
  });

  it('runs in the background when asked, reporting progress a chunk of checksum.chunk_bytes', async () => {
    const text = 'x'.repeat(5 * 1024);
    const accepted = await checksum({ text }, { Prefer: 'respond-async' });
    expect(accepted.status).toBe(202);
    const id = (accepted.body as { id: string }).id;
    let view: Invocation | undefined;
    for (let i = 0; i < 200 && view?.status !== 'succeeded'; i++) {
      if (i) await new Promise((resolve) => setTimeout(resolve, 50));
      view = (await t.http().get(`/api/v1/invocations/${id}`).set(bearer(key))).body as Invocation;
    }
    expect(view).toMatchObject({
      status: 'succeeded',
      result: { digest: sha('sha256', text).toString('hex'), bytes: 5 * 1024 },
      // Five chunks of 1,024 bytes, then the end.
      progress: { done: 6, total: 6, message: 'done' },
    });
  });
});
