/**
 * Suites that start instances as processes of their own and stop them by kill -9 (leases, refunds,
 * the webhooks' outbox, the ledger), run the compiled CLI or server many times (webhooks, the
 * ledger, keys, the first start, the configuration's start-up checks), stop and restart a Redis of
 * their own (the single Redis's outages), stream
 * 100,000 entries, read the ledger's API through every filter and format, run two instances
 * with MCP clients and webhooks (runs, the ledger's reconciliation), or were the slowest of
 * `npm test` (tracing: a built server a test; ensure-built: builds of a copy; key-names: the CLI
 * again and again; the two fuzz suites' thousands of generated requests; typed-client: a client
 * generated and type-checked; then the stdio MCP server's processes, the servers a shutdown test
 * starts and stops, and doctor's runs of the compiled CLI, 20 to 33 s each on a loaded machine;
 * the hostile upstream's, whose notification flood and 50 MB answers take 40 to 60 s):
 * `npm run test:matrix` runs
 * them, on SQLite (e2e-spawned) and on Redis (e2e-fastify-redis), so that `npm test` stays under
 * three minutes. One pattern, read by jest.config.js (to leave them out) and jest.matrix.config.js
 * (to run them).
 */
module.exports = {
  MATRIX_ONLY:
    '/(invocations/runtime-(lease|refunds)|webhooks/webhooks-(cli|restart)|ledger/ledger-(api|cli|stream|ops)|ledger/reconciliation(-kill)?|runs/runs-(instances|mcp|webhooks)|tools/tools-(new|init)|cli/(keys-cli|cli-first-start)|configuration/config-startup|store/redis|tracing/tracing(-shape)?|repository/ensure-built|subjects/key-names|http/fuzz|mcp/mcp-fuzz|openapi/typed-client|mcp/mcp-stdio|http/shutdown|tools/doctor|sources/hostile-upstream)\\.e2e-spec\\.ts$',
  /**
   * Of those, the ones no store, adapter or topology decides, run once (e2e-spawned): `tools new`'s
   * (a type check and a Jest run in a copy of the checkout, on SQLite whatever the project) and
   * `tools init`'s (the compiled CLI and a Jest run in a team's project), the
   * single Redis's outages (a redis-server of their own), `ensure-built` (builds of a copy), and
   * the hostile upstream's (what it tests is the upstream client, whatever the store).
   */
  MATRIX_ONCE:
    '/(tools/tools-(new|init)|store/redis|repository/ensure-built|sources/hostile-upstream)\\.e2e-spec\\.ts$',
};
