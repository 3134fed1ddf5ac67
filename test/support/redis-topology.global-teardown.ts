import type { ClusterTopology, SentinelTopology } from './redis-topology';

/**
 * globalTeardown of the matrix projects (run once for all of them): stops every server the
 * topologies' global setups started and removes their files.
 */
export default async function stopSharedTopologies(): Promise<void> {
  const started = globalThis as {
    __e2eSentinel?: SentinelTopology;
    __e2eCluster?: ClusterTopology;
  };
  await Promise.all([started.__e2eSentinel?.destroy(), started.__e2eCluster?.destroy()]);
}
