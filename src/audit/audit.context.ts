import { AsyncLocalStorage } from 'node:async_hooks';
import { currentRequest } from '../common/request-scope';

/** Who is acting, for the audit trail: a key over HTTP or MCP, or the operator's CLI, or the service. */
export interface AuditActor {
  actorKeyId: string | null;
  requestId: string | null;
  /** Set when no key acts: `cli` (the operator CLI) or `system` (start-up). */
  source?: 'cli' | 'system';
}

const storage = new AsyncLocalStorage<AuditActor>();

/**
 * The actor of the work running now: the one given by actAs, else the HTTP request's key and id,
 * else (no request, no command) the service itself.
 */
export function currentActor(): AuditActor {
  const acting = storage.getStore();
  if (acting) return acting;
  const req = currentRequest();
  if (req) return { actorKeyId: req.apiKey?.id ?? null, requestId: req.id ?? null };
  return { actorKeyId: null, requestId: null, source: 'system' };
}

/** Runs `work` (and everything it starts) as `actor`. */
export function actAs<T>(actor: AuditActor, work: () => T): T {
  return storage.run(actor, work);
}
