import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { INITIAL_KEY_FILE } from '../../src/subjects/initial-key';
import { baseEnv, bearer, spawnApp, SpawnedApp, tempDataDir } from '../support/app';
import { usingSharedRedis } from '../support/redis';

describe('graceful shutdown (a real server process)', () => {
  let server: SpawnedApp | undefined;

  afterEach(() => server?.stop('SIGKILL'));

  it('on SIGTERM finishes the in-flight request, closes the store and exits 0', async () => {
    const dataDir = tempDataDir();
    // The data directory's own Redis prefix: a fresh store, so the initial key is written.
    const env: Record<string, string> = { ...baseEnv(dataDir), DATA_DIR: dataDir };
    server = spawnApp({ script: 'test/support/slow-server.ts', env });
    const port = Number((await server.line(/^listening (\d+)$/))[1]);
    const base = `http://127.0.0.1:${port}`;
    const key = readFileSync(join(dataDir, INITIAL_KEY_FILE), 'utf8').trim();

    const inFlight = request(base).post('/api/v1/services/slow').set(bearer(key)).send({});
    const answered = inFlight.then((res) => res);
    await server.line(/^in-flight$/);
    server.child.kill('SIGTERM');

    const res = await answered;
    expect(res.status).toBe(200);
    // The tool answered after the server had stopped accepting connections.
    expect(res.body).toEqual({ finished: true });

    await expect(request(base).get('/health')).rejects.toThrow(
      /ECONNREFUSED|ECONNRESET|socket hang up/,
    );
    expect(await server.exited).toEqual({ code: 0, signal: null });

    const messages = server.logRecords().map((r) => r.msg);
    expect(messages).toContain('SIGTERM: finishing in-flight requests, then closing the store');
    if (!usingSharedRedis()) {
      // SQLite folds its write-ahead log into the database and removes it when the last connection closes.
      expect(existsSync(join(dataDir, 'service.db'))).toBe(true);
      expect(existsSync(join(dataDir, 'service.db-wal'))).toBe(false);
    }
  });
});
