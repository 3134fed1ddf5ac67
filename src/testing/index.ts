/**
 * The test kit (`tool-invocation-service/testing`): what a team's supertest suites, and this
 * repository's own, start the real app with, make keys and runs, call tools over REST and MCP of
 * either era, read usage and the ledger, and close everything. docs/testing-kit.md.
 */
export { LogCapture, startTestApp, tempDataDir } from './test-app';
export type { TestApp, TestAppOptions, TestKey, TestRun } from './test-app';
export { connectMcp, MCP_ERAS } from './mcp-client';
export type { McpEra, McpStdioServer, McpTestClient } from './mcp-client';
export { freePort, RedisServer } from './redis-server';
export type { RedisServerOptions } from './redis-server';
