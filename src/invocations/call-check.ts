import { DiscoveryService } from '@nestjs/core';
import type { Caller } from '../subjects';
import type { Call } from './call';

/**
 * A check a module adds to every keyed call, over REST and both MCP transports: it runs after the
 * caller is authenticated and holds a scope the call asks for, before anything is taken or
 * charged (CallChecks, step 3). It returns when the call may go on, or throws (rejects with) an
 * ApiError to refuse it; a check with nothing to wait for returns at once.
 */
export interface CallCheck {
  check(call: Call, caller: Caller): Promise<void> | void;
}

/**
 * Marks a provider as a CallCheck of every call. Checks run in `order` (lowest first; 1000 when
 * unsaid), then in the order their modules are found.
 */
export const CallCheck = DiscoveryService.createDecorator<{ order?: number } | undefined>();
