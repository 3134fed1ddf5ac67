/**
 * The Docker side of `npm run test:docker`: commands run and awaited, a `docker` whose BuildKit
 * works, the base images (the official ones, else those scripts/docker-base-images.sh makes), and a
 * compose project of its own that leaves nothing behind.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const log = (line: string) => console.log(`test:docker: ${line}`);

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never throws for its exit status (`must` does). */
export function run(
  command: string,
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    input?: string;
    timeoutMs?: number;
    /** Called with each line of stderr as it comes (a long command's progress). */
    onLine?: (line: string) => void;
  } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    let partial = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!options.onLine) return;
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      lines.forEach(options.onLine);
    });
    const timer = options.timeoutMs
      ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
      : undefined;
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    if (child.stdin) {
      // A command that exits before reading its input closes the pipe: that is its answer, not ours.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

/** Runs a command and answers its stdout; a non-zero exit throws with the end of its output. */
export async function must(
  command: string,
  args: string[],
  options: Parameters<typeof run>[2] = {},
): Promise<string> {
  const ran = await run(command, args, options);
  if (ran.code !== 0) {
    const tail = `${ran.stdout}\n${ran.stderr}`.trim().split('\n').slice(-40).join('\n');
    throw new Error(`${command} ${args.join(' ')} exited with ${ran.code}:\n${tail}`);
  }
  return ran.stdout;
}

/** Every executable of that name on PATH, in order. */
function onPath(name: string): string[] {
  const found = (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .filter((path) => existsSync(path));
  return [...new Set(found)];
}

/**
 * The first `docker` on PATH that builds with BuildKit (a newer client earlier on PATH may lack
 * buildx and refuse it; Debian's /usr/bin/docker comes after). Undefined when there is no `docker` at all; throws when none builds or none reaches the
 * engine.
 */
export async function findDocker(): Promise<string | undefined> {
  const candidates = onPath('docker');
  if (!candidates.length) return undefined;
  const reasons: string[] = [];
  for (const docker of candidates) {
    const info = await run(docker, ['info', '--format', '{{.ServerVersion}}']);
    if (info.code !== 0) {
      reasons.push(`${docker}: the engine does not answer (${info.stderr.trim().split('\n')[0]})`);
      continue;
    }
    const probe = await run(docker, ['build', '-q', '-t', 'tis-buildkit-probe', '-'], {
      env: { ...process.env, DOCKER_BUILDKIT: '1' },
      input: 'FROM scratch\nLABEL probe=buildkit\n',
    });
    if (probe.code === 0) {
      await run(docker, ['rmi', 'tis-buildkit-probe']);
      return docker;
    }
    reasons.push(`${docker}: ${probe.stderr.trim().split('\n')[0]}`);
  }
  throw new Error(`no docker here builds with BuildKit:\n  ${reasons.join('\n  ')}`);
}

/** The compose command: Debian's docker-compose, else Docker's Compose plugin. */
export async function findCompose(docker: string): Promise<string[] | undefined> {
  const [v1] = onPath('docker-compose');
  if (v1) return [v1];
  const plugin = await run(docker, ['compose', 'version']);
  return plugin.code === 0 ? [docker, 'compose'] : undefined;
}

export type BaseImages = Record<'NODE_IMAGE' | 'REDIS_IMAGE' | 'NGINX_IMAGE', string>;

/** The official images the Dockerfile and docker-compose.yml default to, read from them. */
export function officialImages(): BaseImages {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
  const fromCompose = (name: string) => {
    const found = new RegExp(`\\$\\{${name}:-([^}]+)\\}`).exec(compose)?.[1];
    if (!found) throw new Error(`docker-compose.yml has no default for ${name}`);
    return found;
  };
  const node = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
  if (!node) throw new Error('the Dockerfile has no default for NODE_IMAGE');
  return {
    NODE_IMAGE: node,
    REDIS_IMAGE: fromCompose('REDIS_IMAGE'),
    NGINX_IMAGE: fromCompose('NGINX_IMAGE'),
  };
}

/**
 * The base images to use: each named in the environment, else the official one when it is here or
 * can be pulled, else the one scripts/docker-base-images.sh makes from Debian's packages.
 */
export async function baseImages(docker: string, log: (line: string) => void): Promise<BaseImages> {
  const chosen = officialImages();
  const missing: (keyof BaseImages)[] = [];
  for (const name of Object.keys(chosen) as (keyof BaseImages)[]) {
    const image = process.env[name] || chosen[name];
    chosen[name] = image;
    if ((await run(docker, ['image', 'inspect', image])).code === 0) continue;
    const pulled = await run(docker, ['pull', '-q', image], { timeoutMs: 600_000 });
    if (pulled.code === 0) continue;
    if (process.env[name]) throw new Error(`${name}=${image} is neither here nor pullable`);
    log(`${image} cannot be pulled (${pulled.stderr.trim().split('\n').pop()})`);
    missing.push(name);
  }
  if (!missing.length) return chosen;
  log('making base images from Debian packages: scripts/docker-base-images.sh');
  const script = await run('bash', ['scripts/docker-base-images.sh'], {
    env: { ...process.env, DOCKER: docker },
    onLine: (line) => log(`  ${line}`),
  });
  if (script.code !== 0) throw new Error('scripts/docker-base-images.sh failed');
  const made = Object.fromEntries(
    script.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('=') as [string, string]),
  ) as Partial<BaseImages>;
  for (const name of missing) {
    const image = made[name];
    if (!image) throw new Error(`scripts/docker-base-images.sh named no ${name}`);
    chosen[name] = image;
  }
  return chosen;
}

/**
 * The file of the extra certificate authority the machine trusts (NODE_EXTRA_CA_CERTS, else npm's
 * cafile), for the build's `ca` secret; undefined when there is none.
 */
export function certificateAuthority(): string | undefined {
  const named = process.env.NODE_EXTRA_CA_CERTS;
  if (named && existsSync(named)) return named;
  const npm = spawnSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).stdout?.trim();
  return npm && npm !== 'null' && npm !== 'undefined' && existsSync(npm) ? npm : undefined;
}
