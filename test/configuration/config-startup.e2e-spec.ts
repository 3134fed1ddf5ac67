import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import { get as httpGet } from 'node:http';
import { Test } from '@nestjs/testing';
import { rootModule } from '../../src/app.module';
import { LOG_DESTINATION } from '../../src/logging/log-control';
import { ENVIRONMENT } from '../../src/kernel/settings/settings';
import { ConfigurationService } from '../../src/configuration/configuration.service';
import {
  baseEnv,
  LogCapture,
  spawnApp,
  SpawnedApp,
  spawnListening,
  startApp,
  tempDataDir,
} from '../support/app';
import { writeConfigFile } from '../support/config';

/**
 * The built server (as `npm start` runs dist/main.js) started with only this environment (a fresh
 * DATA_DIR unless it names one), in a directory of its own.
 */
function spawnBuilt(env: Record<string, string>): SpawnedApp {
  return spawnApp({ cwd: tempDataDir(), env: { DATA_DIR: tempDataDir(), ...env } });
}

/** The built server started with only this environment: its exit code and output lines. */
async function startBuilt(
  env: Record<string, string>,
): Promise<{ code: number | null; lines: string[] }> {
  const server = spawnBuilt(env);
  const { code } = await server.exited;
  return { code, lines: server.output().trim().split('\n') };
}

describe('start-up stops on an invalid CONFIG_FILE or environment (e2e)', () => {
  /** The server's root module as startApp builds it, closed again whatever happens (no leaked signal hooks). */
  const failsWith = async (env: Record<string, string>, message: RegExp) => {
    __resetOutOfContextForTests();
    const start = async () => {
      const moduleRef = await Test.createTestingModule({ imports: [rootModule('server')] })
        .overrideProvider(ENVIRONMENT)
        .useValue({ ...baseEnv(), DATA_DIR: tempDataDir(), ...env })
        .overrideProvider(LOG_DESTINATION)
        .useValue(new LogCapture())
        .compile();
      const app = moduleRef.createNestApplication({ logger: false });
      try {
        await app.init();
      } finally {
        await app.close().catch(() => undefined);
      }
    };
    await expect(start()).rejects.toThrow(message);
  };
  const file = (yaml: string) => writeConfigFile(tempDataDir(), yaml);

  it.each([
    [
      'server:\n  port: 70000\n',
      /CONFIG_FILE .*server\.port expects an integer from 1 to 65535; got '70000'/,
    ],
    ['server:\n  port: 80.5\n', /server\.port expects an integer/],
    ['logging:\n  level: loud\n', /logging\.level expects one of trace/],
    ['loging:\n  level: debug\n', /unknown configuration key 'loging'/],
    ['logging:\n  colour: red\n', /unknown configuration key 'logging\.colour'/],
    ['logging: debug\n', /logging is a section/],
    ['llm_config:\n  cache_enabled: maybe\n', /llm_config\.cache_enabled expects a boolean/],
    ['- a list\n', /must be a mapping/],
    ['server: [unclosed\n', /CONFIG_FILE/],
    ['__proto__:\n  polluted: true\n', /unknown configuration key '__proto__'/],
  ])('CONFIG_FILE %j', async (yaml, message) => {
    await failsWith({ CONFIG_FILE: file(yaml) }, message);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    [{ PORT: '70000' }, /PORT: server\.port expects an integer from 1 to 65535; got '70000'/],
    [{ PORT: 'abc' }, /PORT: server\.port expects an integer/],
    [{ HOST: 'no such host!' }, /HOST: server\.host expects a host name or IP address/],
    [{ APP__LOGGING__LEVEL: 'loud' }, /APP__LOGGING__LEVEL: logging\.level expects one of/],
    [{ APP__SERVER__PRT: '1' }, /APP__SERVER__PRT names no configuration key/],
    [
      { PORT: '8001', APP__SERVER__PORT: '8002' },
      /PORT and APP__SERVER__PORT both set server\.port|APP__SERVER__PORT and PORT both set server\.port/,
    ],
  ])('environment %j', async (env, message) => {
    await failsWith(env, message);
  });

  it('treats an empty variable as unset', async () => {
    const t = await startApp({ env: { PORT: '', APP__LOGGING__LEVEL: '' } });
    try {
      expect(t.app.get(ConfigurationService).listenAddress().port).toBe(8000);
    } finally {
      await t.close();
    }
  });
});

describe('the server process and its configuration (e2e)', () => {
  const status = (port: number) =>
    new Promise<number>((resolve) => {
      httpGet({ host: '127.0.0.1', port, path: '/api/v1/auth/me' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', () => resolve(0));
    });
  /** The status of the first answer on `port` (0: none before the process exited), then SIGTERM. */
  const firstAnswer = async (server: SpawnedApp, port: number): Promise<number> => {
    try {
      let answered = 0;
      // Bounded: at most 300 polls, 100 ms apart.
      for (let i = 0; i < 300 && answered === 0 && server.child.exitCode === null; i++) {
        await new Promise((r) => setTimeout(r, 100));
        answered = await status(port);
      }
      return answered;
    } finally {
      await server.stop();
    }
  };

  // Each server is asked first for the line saying it listens (spawnListening): a free port may be
  // taken by another suite's server before this one binds it, and that server would answer too.
  it('listens on server.host and server.port of the tree', async () => {
    const dataDir = tempDataDir();
    const { app: server, port } = await spawnListening(
      { cwd: tempDataDir(), env: { DATA_DIR: dataDir } },
      (port) => ({
        CONFIG_FILE: writeConfigFile(dataDir, `server:\n  host: 127.0.0.1\n  port: ${port}\n`),
      }),
    );
    expect(await firstAnswer(server, port)).toBe(401);
  });

  it.each(['express', 'fastify'])(
    'serves on HTTP_ADAPTER=%s from the built server, and its start-up line names it',
    async (adapter) => {
      const { app: server, port } = await spawnListening({
        cwd: tempDataDir(),
        env: { ...baseEnv(), DATA_DIR: tempDataDir(), HTTP_ADAPTER: adapter },
      });
      expect(await firstAnswer(server, port)).toBe(401);
      expect(server.output()).toContain(`Listening on http://127.0.0.1:${port} with ${adapter}`);
    },
  );

  it.each([
    ['HTTP_ADAPTER', 'koa'],
    ['BODY_LIMIT_BYTES', 'abc'],
    ['TOOL_BODY_LIMIT_BYTES', '-1'],
    ['TRUST_PROXY', 'maybe'],
    ['REDIS_KEY_PREFIX', 'a b'],
    ['REDIS_KEY_PREFIX', 'tis{a}:'],
    ['REDIS_SENTINELS', 'sentinel-without-port'],
    ['PLAN_FREE_DAILY_LIMIT', 'x'],
  ])('stops the built server on %s=%s with one line naming it, exit 1', async (name, value) => {
    const { code, lines } = await startBuilt({ [name]: value });
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^Start-up failed: Invalid environment: ${name} `)),
    ]);
  });

  it('stops the built server on two Redis topologies at once, naming both', async () => {
    const { code, lines } = await startBuilt({
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_CLUSTER_NODES: '127.0.0.1:2',
    });
    expect(code).toBe(1);
    expect(lines).toEqual([
      'Start-up failed: Invalid environment: REDIS_URL and REDIS_CLUSTER_NODES are both set; set at most one of REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES',
    ]);
  });
});
