import { AsyncLocalStorage } from 'node:async_hooks';

/** Who is acting, for the audit trail: a key over HTTP or MCP, or the operator's CLI, or the service. */
export interface AuditActor {
  actorKeyId: string | null;
  requestId: string | null;
  /** Set when no key acts: `cli` (the operator CLI) or `system` (start-up). */
  source?: 'cli' | 'system';
}

const storage = new AsyncLocalStorage<AuditActor>();

/** The actor of the work running now; outside any request or command, the service itself. */
export function currentActor(): AuditActor {
  return storage.getStore() ?? { actorKeyId: null, requestId: null, source: 'system' };
}

/** Runs `work` (and everything it starts) as `actor`. */
export function actAs<T>(actor: AuditActor, work: () => T): T {
  return storage.run(actor, work);
}
