/**
 * `npm run test:docker` (and `.ci/run`): the Docker deployment of the README and docs/operations.md,
 * run for real. The base images (the official ones, else made from Debian's packages by
 * scripts/docker-base-images.sh), the service's image built by the Dockerfile with BuildKit (the
 * machine's extra certificate authority, if any, as the secret `ca`), one container of it on its
 * own (its start time, its health check, its user and read-only root), then docker-compose.yml
 * started with `up --no-build` under a project name of its own, published on a free loopback port:
 * through nginx the README's curl, the initial key read with `exec`, keys and calls both replicas
 * see, a replica killed under load, `down` then `up` keeping keys, usage and the ledger, and the
 * `sentinel` profile surviving its master's stop. Each step's time is printed; every container,
 * network and volume made is removed, pass or fail. No Docker on the machine: one line, and done.
 *
 * TEST_DOCKER_KEEP=1 leaves the deployment running (and says how to remove it).
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, callReplica, expectStatus } from './calls';
import { Compose } from './compose';
import {
  baseImages,
  certificateAuthority,
  findCompose,
  findDocker,
  log,
  must,
  run,
  sleep,
} from './docker';
import { killReplicaUnderLoad, replicaBack, sentinelFailover } from './failures';
import { type Deployment, greet, ledger, newKey, up, used } from './service';

const IMAGE = 'tool-invocation-service:latest';
const times: [string, number][] = [];

/** Runs a step, printing its name and its time. */
async function step<T>(name: string, body: () => Promise<T>): Promise<T> {
  log(`${name} ...`);
  const started = performance.now();
  const result = await body();
  const seconds = (performance.now() - started) / 1000;
  times.push([name, seconds]);
  log(`${name}: ${seconds.toFixed(1)} s`);
  return result;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function build(docker: string, nodeImage: string, work: string): Promise<void> {
  const ca = certificateAuthority();
  const logFile = join(work, 'build.log');
  const args = ['build', '--progress=plain', '--build-arg', `NODE_IMAGE=${nodeImage}`, '-t', IMAGE];
  if (ca) args.push('--secret', `id=ca,src=${ca}`);
  log(`DOCKER_BUILDKIT=1 ${docker} ${args.join(' ')} .`);
  // BuildKit's steps that ran (not cached) for a second or more, as each ends, with its time.
  const names = new Map<string, string>();
  const built = await run(docker, [...args, '.'], {
    env: { ...process.env, DOCKER_BUILDKIT: '1' },
    onLine: (line) => {
      const named = /^#(\d+) (\[(?:build|stage-\d+) +\d+\/\d+\].*)$/.exec(line);
      if (named) names.set(named[1], named[2]);
      const done = /^#(\d+) DONE (\d+\.\d+)s$/.exec(line);
      const name = done && names.get(done[1]);
      if (name && Number(done[2]) >= 1) log(`  ${name.slice(0, 120)}: ${done[2]} s`);
    },
  });
  writeFileSync(logFile, built.stderr + built.stdout);
  if (built.code !== 0) {
    console.error(built.stderr.split('\n').slice(-60).join('\n'));
    throw new Error(`docker build failed (its output: ${logFile})`);
  }
  const size = Number(await must(docker, ['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
  log(
    `image ${IMAGE}: ${(size / 1e6).toFixed(0)} MB (${nodeImage}: ${await sizeOf(docker, nodeImage)})`,
  );
  const node = (await must(docker, ['run', '--rm', IMAGE, 'node', '--version'])).trim();
  assert.match(node, /^v24\./, `the image runs Node ${node}`);
  assert.equal(
    await must(docker, ['image', 'inspect', '--format', '{{.Config.User}}', IMAGE]),
    'node\n',
  );
  if (ca) await noCopyOf(docker, ca);
}

/** No file of the image is the build secret's (a copy would have the same size and digest). */
async function noCopyOf(docker: string, file: string): Promise<void> {
  const bytes = readFileSync(file);
  const digest = createHash('sha256').update(bytes).digest('hex');
  const found = await must(docker, [
    'run', '--rm', '--user', 'root', IMAGE, 'sh', '-c',
    `find / -xdev -type f -size ${bytes.length}c -exec sha256sum {} + 2>/dev/null || true`,
  ]); // prettier-ignore
  assert.doesNotMatch(found, new RegExp(`^${digest} `, 'm'), `the image holds a copy of ${file}`);
  const env = await must(docker, ['image', 'inspect', '--format', '{{json .Config.Env}}', IMAGE]);
  assert.doesNotMatch(env, /NODE_EXTRA_CA_CERTS|secrets/, 'the build secret is named in the image');
}

async function sizeOf(docker: string, image: string): Promise<string> {
  const size = Number(await must(docker, ['image', 'inspect', '--format', '{{.Size}}', image]));
  return `${(size / 1e6).toFixed(0)} MB`;
}

/**
 * One container of the image on its own (SQLite in its volume), read-only, as `docker run` starts
 * it: the time until /health/live answers and until the image's own health check says healthy.
 */
async function standalone(docker: string, project: string): Promise<void> {
  const name = `${project}-standalone`;
  const volume = `${project}-standalone-data`;
  const label = `com.docker.compose.project=${project}`;
  try {
    await must(docker, ['volume', 'create', '--label', label, volume]);
    const started = performance.now();
    await must(docker, [
      'run', '-d', '--name', name, '--label', label, '--read-only', '--tmpfs', '/tmp',
      '-v', `${volume}:/data`, '-p', '127.0.0.1::8000', IMAGE,
    ]); // prettier-ignore
    const port = (await must(docker, ['port', name, '8000/tcp'])).trim().split('\n')[0];
    assert.match(port, /^127\.0\.0\.1:\d+$/);
    let live = 0;
    for (; !live; await sleep(100)) {
      const answer = await call(`http://${port}`, 'GET', '/health/live', {
        timeoutMs: 2_000,
      }).catch(() => undefined);
      if (answer?.status === 200) live = performance.now();
      if (performance.now() - started > 120_000) throw new Error('/health/live never answered');
    }
    let healthy = 0;
    for (; !healthy; await sleep(250)) {
      const status = await must(docker, ['inspect', '--format', '{{.State.Health.Status}}', name]);
      if (status.trim() === 'healthy') healthy = performance.now();
      if (performance.now() - started > 120_000) throw new Error(`the health check says ${status}`);
    }
    log(`started: /health/live answered ${((live - started) / 1000).toFixed(1)} s after docker run; healthy after ${((healthy - started) / 1000).toFixed(1)} s (the check runs every 10 s); load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`); // prettier-ignore
    const key = (await must(docker, ['exec', name, 'cat', '/data/initial-api-key'])).trim();
    const me = expectStatus(
      await call(`http://${port}`, 'GET', '/api/v1/auth/me', { key }),
      200,
      'me',
    );
    assert.equal(me.json.plan, 'unlimited');
  } finally {
    await run(docker, ['rm', '-f', '-v', name]);
    await run(docker, ['volume', 'rm', '-f', volume]);
  }
}

/** The user, the root file system and the health checks of the replicas. */
async function hardening(compose: Compose): Promise<void> {
  for (const service of ['api1', 'api2']) {
    assert.equal(await compose.inspect(service, '{{.Config.User}}'), 'node');
    assert.equal(await compose.inspect(service, '{{.HostConfig.ReadonlyRootfs}}'), 'true');
    assert.equal(await compose.inspect(service, '{{.HostConfig.CapDrop}}'), '[ALL]');
    assert.equal(
      await compose.inspect(service, '{{.HostConfig.SecurityOpt}}'),
      '[no-new-privileges:true]',
    );
    assert.equal((await compose.exec(service, ['id', '-u'])).trim(), '1000');
    const write = await compose.exec(service, ['sh', '-c', 'touch /app/probe 2>&1 || true']);
    assert.match(write, /Read-only file system/, `${service} could write /app: ${write}`);
    await compose.exec(service, ['sh', '-c', 'touch /data/probe && rm /data/probe']);
  }
  await compose.healthy(['redis', 'api1', 'api2', 'nginx']);
  log(
    'api1, api2: user node (uid 1000), no capabilities, read-only root, /data writable; all four healthy',
  );
}

async function bothReplicas(compose: Compose, { base, admin }: Deployment) {
  const made = await newKey(base, admin, 'both replicas');
  for (const service of ['api1', 'api2']) {
    const me = await callReplica(compose, service, 'GET', '/api/v1/auth/me', { key: made.key });
    assert.equal(expectStatus(me, 200, `${service} knows the key`).json.key_id, made.id);
  }
  for (let i = 0; i < 10; i += 1) await greet(base, made.key);
  const direct = await callReplica(compose, 'api2', 'POST', '/api/v1/services/greet', {
    key: made.key,
    body: { name: 'api2' },
  });
  expectStatus(direct, 200, 'a greet on api2');
  for (const service of ['api1', 'api2']) {
    const usage = await callReplica(compose, service, 'GET', '/api/v1/usage?days=2', {
      key: made.key,
    });
    const history = expectStatus(usage, 200, `usage on ${service}`).json.history as {
      used: number;
    }[];
    assert.equal(
      history.reduce((sum, day) => sum + day.used, 0),
      11,
      `${service} counts 11 calls`,
    );
  }
  log(
    'a key made through nginx answers on api1 and api2; 10 calls through nginx and 1 on api2: both count 11',
  );
  return made;
}

/** `down` (volumes kept) then `up`: the keys, the usage and the ledger are what they were. */
async function downUp(
  compose: Compose,
  port: number,
  deployment: Deployment,
  id: string,
  key: string,
) {
  const { base, admin } = deployment;
  const before = { used: await used(base, admin, id), ledger: await ledger(base, admin, id) };
  const keys = expectStatus(
    await call(base, 'GET', '/api/v1/auth/api-keys', { key: admin }),
    200,
    'keys',
  );
  await compose.compose(['down', '-t', '10']);
  const again = await up(compose, port);
  assert.equal(again.admin, admin, 'the initial key file is kept');
  const keysAfter = expectStatus(
    await call(base, 'GET', '/api/v1/auth/api-keys', { key: admin }),
    200,
    'keys',
  );
  const ids = (list: { id: string }[]) => list.map((k) => k.id);
  assert.deepEqual(ids(keysAfter.json), ids(keys.json));
  await greet(base, key, 'after up');
  assert.equal(await used(base, admin, id), before.used + 1);
  const entries = await ledger(base, admin, id);
  assert.deepEqual(entries.slice(0, -1), before.ledger, 'the ledger kept its entries');
  assert.equal(entries.length, before.ledger.length + 1);
  log(`after down and up: ${ids(keys.json).length} keys, ${before.used} credits used and ${before.ledger.length} ledger entries kept; the next call counted`); // prettier-ignore
}

async function readmeCurl({ base, admin }: Deployment): Promise<void> {
  const answer = await call(base, 'POST', '/api/v1/services/greet', {
    key: admin,
    body: { name: 'Docker', shout: true },
  });
  assert.equal(expectStatus(answer, 200, 'greet').text, '{"message":"HELLO, DOCKER!","times":1}');
}

/** `down -v`: nothing of the project is left (the next step starts from empty volumes). */
async function downVolumes(compose: Compose): Promise<void> {
  await compose.compose(['down', '-v', '-t', '10']);
  const label = `label=com.docker.compose.project=${compose.project}`;
  for (const list of [
    ['ps', '-aq'],
    ['network', 'ls', '-q'],
    ['volume', 'ls', '-q'],
  ]) {
    assert.equal(await must(compose.docker, [...list, '--filter', label]), '', list.join(' '));
  }
}

async function main(): Promise<void> {
  const docker = await findDocker();
  if (!docker) return log('skipped: no docker on this machine');
  const composeCommand = await findCompose(docker);
  if (!composeCommand)
    throw new Error('docker is here but neither docker-compose nor `docker compose`');
  log(`${docker}, ${composeCommand.join(' ')}`);
  const work = mkdtempSync(join(tmpdir(), 'tis-test-docker-'));
  const images = await step('base images', () => baseImages(docker, log));
  log(Object.entries(images).map(([name, image]) => `${name}=${image}`).join(' ')); // prettier-ignore
  await step('build', () => build(docker, images.NODE_IMAGE, work));

  const project = `tis-test-docker-${process.pid}`;
  const port = await freePort();
  const emptyEnv = join(work, 'empty.env');
  writeFileSync(emptyEnv, '');
  const compose = new Compose(docker, composeCommand, project, emptyEnv, {
    HTTP_PORT: `127.0.0.1:${port}`,
    ...images,
  });
  const sweep = async () => {
    const left = await compose.sweep();
    log(left.length ? `removed what down left: ${left.join(', ')}` : `project ${project} removed`);
  };
  // Interrupted, or an error no promise carries: the project is removed all the same.
  const interrupted = () => void sweep().finally(() => process.exit(130));
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  process.once('uncaughtException', (error) => {
    console.error(`test:docker: FAILED: ${error.stack}`);
    void sweep().finally(() => process.exit(1));
  });
  try {
    await step('one container on its own', () => standalone(docker, project));
    const deployment = await step('up (two replicas, Redis, nginx)', () => up(compose, port));
    await step("the README's curl", () => readmeCurl(deployment));
    const made = await step('keys and calls both replicas see', () => bothReplicas(compose, deployment)); // prettier-ignore
    await step('api2 killed under load', () => killReplicaUnderLoad(compose, deployment, made));
    await step('api2 started again', () => replicaBack(compose, deployment));
    await step('down, then up', () => downUp(compose, port, deployment, made.id, made.key));
    await step('user, read-only root, health checks', () => hardening(compose));
    await step('down -v', () => downVolumes(compose));
    compose.envFile = 'deploy/sentinel.env';
    await step('the sentinel profile, its master stopped', () => sentinelFailover(compose, port));
  } finally {
    if (process.env.TEST_DOCKER_KEEP === '1') {
      log(`kept: docker-compose -p ${project} --env-file ${compose.envFile} down -v`);
    } else {
      await step('clean up', sweep);
      rmSync(work, { recursive: true, force: true });
    }
  }
  log(`steps: ${times.map(([name, s]) => `${name} ${s.toFixed(1)} s`).join('; ')}`);
  log('passed');
}

if (require.main === module) {
  // The process must not end as a pass with the test unfinished (a promise that nothing will
  // settle lets node exit with status 0).
  let finished = false;
  process.on('exit', (code) => {
    if (!finished && code === 0) {
      console.error('test:docker: FAILED: the process ended before the test did');
      process.exitCode = 1;
    }
  });
  main()
    .then(() => (finished = true))
    .catch((error: unknown) => {
      console.error(`test:docker: FAILED: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    });
}
