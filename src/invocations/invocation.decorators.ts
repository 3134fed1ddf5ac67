import { Reflector } from '@nestjs/core';

/**
 * A route whose handler charges its own requests against the key's rate limit (the /mcp POST
 * charges each JSON-RPC message of a batch, through LimitsService), so CallChecks does not charge
 * the POST once more.
 */
export const CountsOwnRateLimit = Reflector.createDecorator<boolean>({ transform: () => true });
