// setupFiles of the `e2e-redis` jest project: every app this test file starts uses the shared Redis.
import { useSharedRedis } from './redis';

useSharedRedis('E2E_REDIS_SINGLE_ENV');
