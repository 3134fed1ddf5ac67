// setupFiles of the `e2e-sentinel` matrix project: every app this test file starts goes through the Sentinels.
import { useSharedRedis } from './redis';

useSharedRedis('E2E_REDIS_SENTINEL_ENV');
