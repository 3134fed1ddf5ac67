// setupFiles of the `e2e-redis` jest project: every app this test file starts uses the shared Redis.
// Fail loudly rather than silently run this project on SQLite.
if (!process.env.E2E_REDIS_SERVER_URL) {
  throw new Error('e2e-redis: the shared redis-server of globalSetup is not known to this worker');
}
process.env.TEST_REDIS_URL = process.env.E2E_REDIS_SERVER_URL;
