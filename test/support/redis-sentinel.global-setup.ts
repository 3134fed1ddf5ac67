import { SentinelTopology } from './redis-topology';

/**
 * globalSetup of the `e2e-sentinel` matrix project: one master, one replica and three Sentinels for
 * the whole run; every app reaches them through REDIS_SENTINELS (E2E_REDIS_SENTINEL_ENV, made
 * TEST_REDIS_ENV by the project's setup file).
 */
export default async function startSharedSentinels(): Promise<void> {
  const topology = await SentinelTopology.start();
  (globalThis as { __e2eSentinel?: SentinelTopology }).__e2eSentinel = topology;
  process.env.E2E_REDIS_SENTINEL_ENV = JSON.stringify(topology.env());
}
