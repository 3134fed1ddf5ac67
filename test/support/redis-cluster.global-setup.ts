import { ClusterTopology } from './redis-topology';

/**
 * globalSetup of the `e2e-cluster` matrix project: a cluster of three masters for the whole run;
 * every app reaches it through REDIS_CLUSTER_NODES (E2E_REDIS_CLUSTER_ENV, made TEST_REDIS_ENV by
 * the project's setup file).
 */
export default async function startSharedCluster(): Promise<void> {
  const topology = await ClusterTopology.start();
  (globalThis as { __e2eCluster?: ClusterTopology }).__e2eCluster = topology;
  process.env.E2E_REDIS_CLUSTER_ENV = JSON.stringify(topology.env());
}
