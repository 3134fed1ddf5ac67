import { baseEnv, spawnListening, tempDataDir } from '../support/app';

/**
 * The server as operators start it (`node dist/main.js`; test/support/built.ts) runs with V8's allocation-site
 * pretenuring off (src/kernel/common/heap-tuning.ts): V8 then prints no pretenuring statistics, where a
 * process with it on prints some at the scavenges of its start-up already.
 */
describe('V8 heap settings of the server (e2e)', () => {
  it('starts with allocation-site pretenuring off', async () => {
    const dataDir = tempDataDir();
    const { app: server, port } = await spawnListening({
      nodeArgs: ['--trace-pretenuring-statistics'],
      env: { ...baseEnv(dataDir), DATA_DIR: dataDir },
    });
    try {
      // Calls allocate, and a scavenge or two falls within them.
      for (let i = 0; i < 200; i++) await fetch(`http://127.0.0.1:${port}/health/live`);
    } finally {
      await server.stop();
    }
    const out = server.output();
    expect(out).toContain('Listening on');
    expect(out).not.toContain('pretenuring:');
  });
});
