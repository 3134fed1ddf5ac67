// setupFiles of the Fastify projects of `npm run test:matrix`: every app this test file starts (and
// every server process it spawns) runs on Fastify (HTTP_ADAPTER=fastify, through baseEnv()).
process.env.TEST_HTTP_ADAPTER = 'fastify';
