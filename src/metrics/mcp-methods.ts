/**
 * The methods a client sends that are named as they are on spans and the metric's label; any other
 * is `_OTHER` (a client's made-up method names would otherwise make a label without end).
 */
const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'tasks/get',
  'tasks/cancel',
  'tasks/update',
  'tasks/list',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
]);

/** An MCP method as a label names it (and a span): the protocol's, else `_OTHER`. */
export function mcpMethodLabel(method: unknown): string {
  return typeof method === 'string' && MCP_METHODS.has(method) ? method : '_OTHER';
}
