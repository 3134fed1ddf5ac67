/**
 * What `npm run test:docker` breaks on purpose: a replica killed during a load of calls (then
 * started again), and under the `sentinel` profile the Redis master stopped.
 */
import { strict as assert } from 'node:assert';
import { call, callReplica, greetLoad, greetsServedBy, type Outcome } from './calls';
import type { Compose } from './compose';
import { log, must, run, sleep } from './docker';
import { type Deployment, greet, ledger, newKey, up, used } from './service';

/** Calls in flight at the kill may fail; from this long after it, every call succeeds. */
const GRACE_MS = 5_000;

function statuses(outcomes: Outcome[], since: number): string {
  const shown = outcomes
    .slice(0, 20)
    .map(
      (o) =>
        `${o.status} sent at ${((o.started - since) / 1000).toFixed(1)} s, in ${o.ended - o.started} ms`,
    );
  return outcomes.length > 20 ? `${shown.join(', ')}, …` : shown.join(', ');
}

/**
 * A bounded load of greets through nginx (4 at a time, until 10 s after the kill); 3 s in, api2 is
 * killed (`docker kill`: SIGKILL, and its restart policy leaves it down). Calls in flight may fail and are counted; every call sent from 5 s after the
 * kill succeeds (api1 serves it); the key's credits and ledger agree with the calls answered.
 */
export async function killReplicaUnderLoad(
  compose: Compose,
  { base, admin }: Deployment,
  made: { id: string; key: string },
): Promise<void> {
  const before = await used(base, admin, made.id);
  let stopAt = Number.POSITIVE_INFINITY;
  // At most 4 × 200 calls a second: under the unlimited plan's 1,000 a second, which one replica
  // alone on a quiet machine can pass (429s, not failures of the kill).
  const running = greetLoad(base, made.key, {
    concurrency: 4,
    maxCalls: 50_000,
    stop: () => Date.now() >= stopAt,
    gapMs: 5,
  });
  await sleep(3_000);
  const api2 = await compose.containerId('api2');
  const killedAt = Date.now();
  await must(compose.docker, ['kill', '--signal', 'KILL', api2]);
  const killed = Date.now() - killedAt;
  stopAt = killedAt + 2 * GRACE_MS;
  const outcomes = await running;
  const state = await compose.inspect('api2', '{{.State.Status}} (restarts: {{.RestartCount}})');

  const failed = outcomes.filter((o) => o.status !== 200);
  const inFlight = failed.filter((o) => o.started <= killedAt + killed && o.ended >= killedAt);
  const early = outcomes.filter((o) => o.ended < killedAt);
  const late = outcomes.filter((o) => o.started >= killedAt + GRACE_MS);
  const slowest = Math.max(...late.map((o) => o.ended - o.started));
  log(`docker kill took ${killed} ms; ${outcomes.length} calls: ${early.length} answered before the kill; ${failed.length} failed, ${inFlight.length} of them in flight at the kill${failed.length ? ` (${statuses(failed, killedAt)})` : ''}; ${late.length} sent from 5 s after it, the slowest in ${slowest} ms; api2 is ${state}`); // prettier-ignore
  if (failed.length) {
    // What nginx saw of them (its error log, in the container's output).
    const since = new Date(killedAt - 1_000).toISOString();
    const id = await compose.containerId('nginx');
    const logs = await run(compose.docker, ['logs', '--since', since, id]);
    const errors = `${logs.stdout}${logs.stderr}`
      .split('\n')
      .filter((l) => /\[(error|warn)\]/.test(l));
    for (const line of errors.slice(0, 10)) log(`  nginx: ${line.slice(0, 240)}`);
  }
  assert.ok(early.length > 0, 'no call was answered before the kill');
  assert.deepEqual(
    early.filter((o) => o.status !== 200),
    [],
    'calls failed before the kill',
  );
  assert.ok(late.length > 0, 'no call was sent from 5 s after the kill');
  assert.deepEqual(
    late.filter((o) => o.status !== 200),
    [],
    'calls failed 5 s after the kill',
  );

  // A call cut off with its replica may have been counted; one answered always was.
  const counted = (await used(base, admin, made.id)) - before;
  const answered = outcomes.length - failed.length;
  assert.ok(
    counted >= answered && counted <= outcomes.length,
    `${counted} credits counted for ${answered} calls answered of ${outcomes.length}`,
  );
  const entries = await ledger(base, admin, made.id);
  const credits = entries.reduce((sum, entry) => sum + entry.credits, 0);
  assert.equal(credits, before + counted, "the ledger's credits are the key's usage");
  log(`the key counts ${counted} credits for ${answered} calls answered; its ledger's ${entries.length} entries agree`); // prettier-ignore
}

/** api2 started again: healthy, and nginx sends it calls again (it finds its new address). */
export async function replicaBack(compose: Compose, { base, admin }: Deployment): Promise<void> {
  await compose.compose(['start', 'api2']);
  await compose.healthy(['api2']);
  const started = Date.now();
  for (;;) {
    for (let i = 0; i < 10; i += 1) await greet(base, admin, 'back');
    const served = await greetsServedBy(compose, 'api2');
    if (served > 0) {
      log(`api2 healthy again; nginx sent it ${served} of the greets after ${((Date.now() - started) / 1000).toFixed(1)} s`); // prettier-ignore
      return;
    }
    if (Date.now() - started > 60_000) throw new Error('nginx sent no call to api2 in 60 s');
    await sleep(1_000);
  }
}

/** Whether both replicas read the store again (the key's usage, straight from each). */
async function bothServe(compose: Compose, key: string): Promise<boolean> {
  for (const service of ['api1', 'api2']) {
    const usage = await callReplica(compose, service, 'GET', '/api/v1/usage', { key });
    if (usage.status !== 200) return false;
  }
  return true;
}

async function masterName(compose: Compose): Promise<string> {
  const answer = await compose.exec('sentinel-1', [
    'redis-cli', '-p', '26379', 'sentinel', 'get-master-addr-by-name', 'mymaster',
  ]); // prettier-ignore
  return answer.trim().split('\n')[0];
}

/**
 * The `sentinel` profile (deploy/sentinel.env): up, a key and 5 calls replicated (WAIT), then the
 * master `redis` stopped; the Sentinels make redis-replica the master, both replicas find it and
 * the service answers again through nginx with the key and its credits.
 */
export async function sentinelFailover(compose: Compose, port: number): Promise<void> {
  const { base, admin } = await up(compose, port);
  await compose.healthy(['redis-replica', 'sentinel-1', 'sentinel-2', 'sentinel-3']);
  assert.equal(await masterName(compose), 'redis');
  const made = await newKey(base, admin, 'sentinel');
  for (let i = 0; i < 5; i += 1) await greet(base, made.key);
  const replicated = await compose.exec('redis', ['redis-cli', 'wait', '1', '5000']);
  assert.equal(replicated.trim(), '1', 'the replica has not acknowledged the writes');

  const stopped = Date.now();
  await compose.compose(['stop', '-t', '10', 'redis']);
  // Each replica finds the new master on its own: until both do, nginx's answers are mixed.
  const refused: Outcome[] = [];
  let answered = 0;
  let firstBack = 0;
  for (;;) {
    const started = Date.now();
    const answer = await call(base, 'POST', '/api/v1/services/greet', {
      key: made.key,
      body: { name: 'failover' },
    }).catch((error: Error) => ({ status: error.name }));
    if (answer.status === 200) {
      answered += 1;
      firstBack ||= Date.now();
      if (await bothServe(compose, made.key)) break;
    } else {
      refused.push({ started, ended: Date.now(), status: answer.status });
    }
    if (Date.now() - stopped > 120_000) {
      throw new Error(`both replicas did not serve in 120 s: ${statuses(refused, stopped)}`);
    }
    await sleep(250);
  }
  const bothBack = Date.now();
  for (let i = 0; i < 10; i += 1) await greet(base, made.key, 'after the failover');
  answered += 10;
  const kinds = [...new Set(refused.map((o) => o.status))].join(', ');
  assert.equal(await masterName(compose), 'redis-replica');
  const credits = await used(base, admin, made.id);
  assert.ok(
    credits >= 5 + answered && credits <= 5 + answered + refused.length,
    `${credits} credits for ${5 + answered} calls answered and ${refused.length} refused`,
  );
  const after = (at: number) => ((at - stopped) / 1000).toFixed(1);
  log(`master stopped: the first call answered again after ${after(firstBack)} s, both replicas serving after ${after(bothBack)} s (${refused.length} calls refused meanwhile${kinds ? `: ${kinds}` : ''}); the Sentinels name redis-replica; the key and its credits kept (${credits}), 10 calls after all answered`); // prettier-ignore
}
