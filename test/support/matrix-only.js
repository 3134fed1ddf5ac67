/**
 * Suites that start instances as processes of their own and stop them by kill -9 (leases, refunds,
 * the webhooks' outbox, the ledger), run the compiled CLI or server many times (webhooks, the
 * ledger, keys, the first start, the configuration's start-up checks), stop and restart a Redis of
 * their own (the single Redis's outages), stream
 * 100,000 entries, read the ledger's API through every filter and format, run two instances
 * with MCP clients and webhooks (runs, the ledger's reconciliation), or were the slowest of
 * `npm test` (tracing: a built server a test; ensure-built: builds of a copy; key-names: the CLI
 * again and again; the two fuzz suites' thousands of generated requests; typed-client: a client
 * generated and type-checked): `npm run test:matrix` runs
 * them, on SQLite (e2e-spawned) and on Redis (e2e-fastify-redis), so that `npm test` stays under
 * three minutes. One pattern, read by jest.config.js (to leave them out) and jest.matrix.config.js
 * (to run them).
 */
module.exports = {
  MATRIX_ONLY:
    '/(invocations/runtime-(lease|refunds)|webhooks/webhooks-(cli|restart)|ledger/ledger-(api|cli|stream)|ledger/reconciliation(-kill)?|runs/runs-(instances|mcp|webhooks)|tools/tools-new|cli/(keys-cli|cli-first-start)|configuration/config-startup|store/redis|tracing/tracing|repository/ensure-built|subjects/key-names|http/fuzz|mcp/mcp-fuzz|openapi/typed-client)\\.e2e-spec\\.ts$',
  /**
   * Of those, the ones no store, adapter or topology decides, run once (e2e-spawned): `tools new`'s
   * (a type check and a Jest run in a copy of the checkout, on SQLite whatever the project), the
   * single Redis's outages (a redis-server of their own), and `ensure-built` (builds of a copy).
   */
  MATRIX_ONCE: '/(tools/tools-new|store/redis|repository/ensure-built)\\.e2e-spec\\.ts$',
};
