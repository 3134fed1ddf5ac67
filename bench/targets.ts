/**
 * The bench's targets: the peers (bare Node http, bare NestJS on each adapter, a bare FastAPI route)
 * and the service's pipeline targets, each a spec of bench/kinds.ts started from a built dist/ (this
 * one, or a baseline's for its `@base` twin) with its own DATA_DIR and key.
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GREET, GREET_BODY, PipelineSpec } from './kinds';
import { removeDir, ROOT, tempDir } from './lib';
import type { TokenSource, TokenSourceFn } from './token-source';
import { startOtlpSink } from './otlp-sink';

export interface Target {
  id: string;
  label: string;
  path: string;
  body: string;
  headers: Record<string, string>;
  /** Pipeline targets: what they run; `base` for the twin started from BENCH_BASELINE_DIR. */
  pipeline?: PipelineSpec & { base: boolean };
  start(port: number): ChildProcess;
  cleanup?: () => void | Promise<void>;
}

export const PEER_IDS = ['node', 'nest-express', 'nest-fastify', 'fastapi'] as const;
export const BASE_SUFFIX = '@base';

const REST = { path: GREET, body: GREET_BODY, headers: { 'Content-Type': 'application/json' } };

export function nodeTarget(id: string, label: string, file: string): Target {
  return {
    id,
    label,
    ...REST,
    start: (port) =>
      spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', file], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
  };
}

interface Python {
  command: string;
  versions: string;
}

/**
 * The first python3 that imports fastapi and uvicorn: BENCH_PYTHON, the one on PATH, then Debian's
 * own (python3-fastapi and python3-uvicorn install into /usr/bin/python3, which a pyenv or venv on
 * PATH hides).
 */
export function findPython(): Python | { note: string } {
  const candidates = [
    ...new Set(
      [process.env.BENCH_PYTHON, 'python3', '/usr/bin/python3', '/usr/local/bin/python3'].filter(
        (c): c is string => !!c,
      ),
    ),
  ];
  const probe = [
    'import sys, fastapi, uvicorn, pydantic, importlib.util as u',
    'loop = "uvloop" if u.find_spec("uvloop") else "asyncio"',
    'http = "httptools" if u.find_spec("httptools") else "h11"',
    'print(f"Python {sys.version.split()[0]}, FastAPI {fastapi.__version__}, uvicorn {uvicorn.__version__} ({http}, {loop}), pydantic {pydantic.VERSION}")',
  ].join('\n');
  for (const command of candidates) {
    const r = spawnSync(command, ['-c', probe], { encoding: 'utf8', timeout: 20_000 });
    if (r.status === 0) return { command, versions: r.stdout.trim() };
  }
  return {
    note: `no python3 with fastapi and uvicorn among ${candidates.join(', ')} (Debian: apt-get install python3-fastapi python3-uvicorn; or set BENCH_PYTHON)`,
  };
}

export function fastApiTarget(python: Python): Target {
  const args = ['-m', 'uvicorn', '--app-dir', join(ROOT, 'bench/targets'), 'bare_fastapi:app'];
  return {
    id: 'fastapi',
    label: `bare FastAPI route, uvicorn (${python.versions})`,
    ...REST,
    start: (port) =>
      spawn(
        python.command,
        [
          ...args,
          ...['--host', '127.0.0.1', '--port', String(port), '--log-level', 'warning'],
          '--no-access-log',
        ],
        {
          cwd: ROOT,
          env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      ),
  };
}

/** The environment of a service target: what selects the adapter and the store is set here only. */
function serviceEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'HTTP_ADAPTER',
    'REDIS_URL',
    'REDIS_SENTINELS',
    'REDIS_CLUSTER_NODES',
    'PORT',
    'HOST',
    'DATA_DIR',
    'CONFIG_FILE',
  ]) {
    delete env[name];
  }
  return { ...env, ...extra };
}

/** A built service: `dist/main.js` and `dist/cli.js` under `dir`, and what to call it. */
export interface Build {
  dir: string;
  label: string;
}

export function buildAt(dir: string, fallbackLabel: string): Build {
  const abs = resolve(dir);
  for (const file of ['dist/main.js', 'dist/cli.js']) {
    if (!existsSync(join(abs, file))) {
      throw new Error(`no ${file} in ${abs}: build it first (bench/README.md, "Paired A/B")`);
    }
  }
  const stamp = join(abs, 'dist/BENCH_COMMIT');
  const commit = existsSync(stamp)
    ? readFileSync(stamp, 'utf8').trim()
    : spawnSync('git', ['-C', abs, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout?.trim();
  return { dir: abs, label: commit ? `${fallbackLabel} ${commit.slice(0, 10)}` : fallbackLabel };
}

/**
 * BENCH_TOKEN_MODULE's export, else BENCH_TOKEN_CMD run once per target, else the bench's own
 * local issuer (bench/token-source.ts).
 */
export function tokenSourceFromEnv(): TokenSourceFn | undefined {
  const module = process.env.BENCH_TOKEN_MODULE;
  if (module) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require(resolve(module)) as { tokenSource?: TokenSourceFn; default?: unknown };
    const fn = loaded.tokenSource ?? loaded.default;
    if (typeof fn !== 'function') throw new Error(`${module} exports no tokenSource function`);
    return fn as TokenSourceFn;
  }
  const command = process.env.BENCH_TOKEN_CMD;
  if (!command) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('./token-source') as { tokenSource: TokenSourceFn }).tokenSource;
  }
  return (context) => {
    const out = execFileSync('sh', ['-c', command], {
      encoding: 'utf8',
      timeout: 30_000,
      env: {
        ...process.env,
        BENCH_TARGET_ID: context.targetId,
        BENCH_APP_DIR: context.appDir,
        BENCH_DATA_DIR: context.dataDir,
        BENCH_KEY: context.key,
      },
    }).trim();
    if (!out) throw new Error('BENCH_TOKEN_CMD printed nothing');
    if (out.startsWith('{')) return Promise.resolve(JSON.parse(out) as TokenSource);
    return Promise.resolve({ authorization: /\s/.test(out) ? out : `Bearer ${out}` });
  };
}

/**
 * A pipeline target: a data directory (its CONFIG_FILE in it, for a variant that has one), one
 * `unlimited` key whose rate limit the load cannot reach, made with the build's own CLI, and for a
 * token kind the token source's Authorization value and environment.
 */
export async function serviceTarget(
  spec: PipelineSpec,
  build: Build,
  base: boolean,
  redisUrl: string | undefined,
  tokenSource: TokenSourceFn | undefined,
): Promise<Target> {
  const id = base ? `${spec.id}${BASE_SUFFIX}` : spec.id;
  const dir = tempDir('tis-bench-');
  const configFile = join(dir, 'config.yaml');
  if (spec.variant?.configYaml) writeFileSync(configFile, spec.variant.configYaml);
  const env = serviceEnv({
    DATA_DIR: dir,
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    ...(spec.adapter === 'fastify' ? { HTTP_ADAPTER: 'fastify' } : {}),
    ...(spec.variant?.configYaml ? { CONFIG_FILE: configFile } : {}),
    ...spec.variant?.env,
  });
  const key = createKey(id, build.dir, env);
  let authorization = `Bearer ${key}`;
  let stopToken: TokenSource['stop'];
  // Its receiver started after the key is made: the CLI is not traced into it.
  const sink = spec.variant?.otlpSink ? await startOtlpSink() : undefined;
  if (sink) env.OTEL_EXPORTER_OTLP_ENDPOINT = sink.url;
  if (spec.kind.auth === 'token') {
    const source = await tokenSource!({ targetId: id, appDir: build.dir, dataDir: dir, key });
    authorization = source.authorization;
    Object.assign(env, source.env);
    stopToken = source.stop;
  }
  const how = spec.adapter === 'fastify' ? 'HTTP_ADAPTER=fastify' : 'Express, the default';
  const store = spec.store === 'sqlite' ? 'SQLite' : 'Redis';
  const variant = spec.variant ? `, ${spec.variant.label}` : '';
  return {
    id,
    label: `${spec.kind.label}, ${store} (${how}${variant})${base ? `, ${build.label}` : ''}`,
    path: spec.kind.path,
    body: spec.kind.body,
    headers: { ...spec.kind.headers, Authorization: authorization },
    pipeline: { ...spec, base },
    start: (port) =>
      spawn(process.execPath, ['dist/main.js'], {
        cwd: build.dir,
        env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    cleanup: async () => {
      await stopToken?.();
      await sink?.close();
      removeDir(dir);
    },
  };
}

function createKey(id: string, appDir: string, env: NodeJS.ProcessEnv): string {
  const args = ['keys', 'create', '--name', `bench-${id}`, '--template', 'standard'];
  const out = execFileSync(
    process.execPath,
    ['dist/cli.js', ...args, '--plan', 'unlimited', '--rate-limit', '100000000', '--json'],
    { cwd: appDir, env, encoding: 'utf8', timeout: 60_000 },
  );
  return (JSON.parse(out) as { key: string }).key;
}
