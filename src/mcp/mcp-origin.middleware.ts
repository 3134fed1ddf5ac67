import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors/api-error';
import { originOf, Settings, SETTINGS } from '../settings/settings';

export const ORIGIN_NOT_ALLOWED = 'Origin not allowed for MCP requests.';

/**
 * DNS-rebinding protection for /mcp, as the MCP transport specification asks: a browser request
 * (one with an `Origin` header) must come from an origin the operator allowed in
 * MCP_ALLOWED_ORIGINS. Programs (agents, CLIs) send no `Origin` and pass. Runs before
 * authentication, so a hostile page learns nothing about keys.
 */
@Injectable()
export class McpOriginMiddleware implements NestMiddleware {
  private readonly allowed: Set<string>;

  constructor(@Inject(SETTINGS) settings: Settings) {
    // Origins the operator allows to call the API at all (CORS_ORIGINS) may call /mcp too.
    this.allowed = new Set([...settings.mcpAllowedOrigins, ...settings.corsOrigins]);
  }

  use(req: IncomingMessage, _res: ServerResponse, next: () => void): void {
    const origin = req.headers.origin;
    if (origin === undefined || this.isAllowed(origin)) return next();
    throw new ApiError(403, ORIGIN_NOT_ALLOWED);
  }

  private isAllowed(origin: string): boolean {
    if (this.allowed.has('*')) return true;
    const normal = originOf(origin);
    return normal !== undefined && this.allowed.has(normal);
  }
}
