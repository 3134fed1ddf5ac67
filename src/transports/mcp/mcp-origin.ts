import type { IncomingMessage } from 'node:http';
import { pathOf, type Refusal } from '../../kernel/http/body';
import { originOf, type Settings } from '../../kernel/settings/settings';

export const ORIGIN_NOT_ALLOWED = 'Origin not allowed for MCP requests.';

/**
 * DNS-rebinding protection for /mcp, as the MCP transport specification asks: a browser request
 * (one with an `Origin` header) must come from an origin the operator allowed in
 * MCP_ALLOWED_ORIGINS or CORS_ORIGINS. Programs (agents, CLIs) send no `Origin` and pass. Checked at
 * the front door, before the body is read and before authentication, so a hostile page learns
 * nothing about keys.
 */
export function mcpOriginGate(
  settings: Pick<Settings, 'mcpAllowedOrigins' | 'corsOrigins'>,
  isMcp: (path: string) => boolean,
): (req: IncomingMessage) => Refusal | undefined {
  const allowed = new Set([...settings.mcpAllowedOrigins, ...settings.corsOrigins]);
  const admits = (origin: string) => {
    if (allowed.has('*')) return true;
    const normal = originOf(origin);
    return normal !== undefined && allowed.has(normal);
  };
  return (req) => {
    const origin = req.headers.origin;
    if (origin === undefined || !isMcp(pathOf(req.url)) || admits(origin)) return;
    return { status: 403, detail: ORIGIN_NOT_ALLOWED };
  };
}
