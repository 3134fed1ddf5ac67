// setupFiles of the `e2e-cluster` matrix project: every app this test file starts uses the cluster.
import { useSharedRedis } from './redis';

useSharedRedis('E2E_REDIS_CLUSTER_ENV');
