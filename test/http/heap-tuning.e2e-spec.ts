import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../support/redis';
import { baseEnv, tempDataDir } from '../support/app';
import { builtEntry } from '../support/built';

const ROOT = join(__dirname, '../..');

/**
 * The server as operators start it (`node dist/main.js`; test/support/built.ts) runs with V8's allocation-site
 * pretenuring off (src/kernel/common/heap-tuning.ts): V8 then prints no pretenuring statistics, where a
 * process with it on prints some at the scavenges of its start-up already.
 */
describe('V8 heap settings of the server (e2e)', () => {
  it('starts with allocation-site pretenuring off', async () => {
    const dataDir = tempDataDir();
    const port = await freePort();
    const args = ['--trace-pretenuring-statistics', ...builtEntry('main')];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...baseEnv(dataDir),
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => out.includes('Listening on') && resolve());
        child.on('exit', () => reject(new Error(`server exited before listening: ${out}`)));
      });
      // Calls allocate, and a scavenge or two falls within them.
      for (let i = 0; i < 200; i++) await fetch(`http://127.0.0.1:${port}/health/live`);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    expect(out).toContain('Listening on');
    expect(out).not.toContain('pretenuring:');
  });
});
