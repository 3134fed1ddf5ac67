/**
 * The service as `npm run test:docker` uses it through nginx: the deployment started, keys made,
 * greets, and a key's stored state (its credits, its ledger).
 */
import { strict as assert } from 'node:assert';
import { call, expectStatus } from './calls';
import type { Compose } from './compose';
import { log } from './docker';

/** The deployment through nginx: its address and its initial (admin) key. */
export interface Deployment {
  base: string;
  admin: string;
}

/**
 * `up --no-build`, every service healthy; nginx published on loopback only; the initial key, the same
 * in both replicas (their shared data volume).
 */
export async function up(compose: Compose, port: number): Promise<Deployment> {
  await compose.compose(['up', '-d', '--no-build']);
  await compose.healthy(['redis', 'api1', 'api2', 'nginx']);
  const published = await compose.compose(['port', 'nginx', '8080']);
  assert.equal(published.trim(), `127.0.0.1:${port}`, 'nginx is published on loopback only');
  const admin = (await compose.composeExec('api1', ['cat', '/data/initial-api-key'])).trim();
  assert.match(admin, /^sk_/);
  assert.equal((await compose.composeExec('api2', ['cat', '/data/initial-api-key'])).trim(), admin);
  log(
    'the initial key: docker-compose exec -T api1 cat /data/initial-api-key (api2 reads the same)',
  );
  return { base: `http://127.0.0.1:${port}`, admin };
}

/** A key of the `unlimited` plan (its rate is far above the load's), made through nginx. */
export async function newKey(base: string, admin: string, name: string) {
  const made = await call(base, 'POST', '/api/v1/auth/api-keys', {
    key: admin,
    body: { name, scope_template: 'standard', plan: 'unlimited' },
  });
  expectStatus(made, 201, 'a new key');
  return { id: made.json.id as string, key: made.json.key as string };
}

export async function greet(base: string, key: string, name = 'Docker'): Promise<void> {
  const answer = await call(base, 'POST', '/api/v1/services/greet', { key, body: { name } });
  expectStatus(answer, 200, 'greet');
}

/** A key's credits over the last two days (a run across midnight UTC keeps them). */
export async function used(base: string, admin: string, id: string): Promise<number> {
  const usage = await call(base, 'GET', `/api/v1/auth/api-keys/${id}/usage?days=2`, { key: admin });
  expectStatus(usage, 200, 'usage');
  return (usage.json.history as { used: number }[]).reduce((sum, day) => sum + day.used, 0);
}

/** A key's ledger entries, streamed whole (NDJSON). */
export async function ledger(
  base: string,
  admin: string,
  id: string,
): Promise<{ id: string; credits: number }[]> {
  const answer = await call(base, 'GET', `/api/v1/ledger?subject=key:${id}`, {
    key: admin,
    accept: 'application/x-ndjson',
  });
  expectStatus(answer, 200, 'ledger');
  return answer.text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
