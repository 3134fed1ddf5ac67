import { Reflector } from '@nestjs/core';

/**
 * A route that counts its own requests against the key's rate limit (the /mcp POST counts each
 * JSON-RPC request of a batch), so the pipeline does not count the POST once more.
 */
export const CountsOwnRate = Reflector.createDecorator<boolean>({ transform: () => true });
