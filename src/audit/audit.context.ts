import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { CallerRef, RequestScope } from '../kernel/http/request-scope';

/**
 * Who is acting, for the audit trail: a key over HTTP or MCP, or the operator's CLI, or the
 * service. It is handed down from where the call entered, never read from an async context: an
 * AsyncLocalStorage made every promise pay its hook on Node 20, and its `run()` a request is not
 * shown under 5 % on Node 24 (docs/performance.md, "Judged again on Node 24").
 */
export interface AuditActor {
  actorKeyId: string | null;
  /** The OAuth principal acting (absent or null when a key, the CLI or the service acts). */
  actorPrincipalId?: string | null;
  /** The client the acting principal's token was issued to, when it names one. */
  actorClientId?: string | null;
  requestId: string | null;
  /** Set when no key acts: `cli` (the operator CLI) or `system` (start-up). */
  source?: 'cli' | 'system';
}

/**
 * The field of a log line that carries an audit entry. Such a line is written whatever the live
 * `logging.level` (src/logging/): the level is a setting any key with services:execute may change
 * (config_set), and the record of who changed what must not be silenced by whom it records.
 */
export const AUDIT_LOG_FIELD = 'audit';

/** The operator at the CLI: audit entries name no key, and say `source: cli`. */
export const CLI_ACTOR: AuditActor = { actorKeyId: null, requestId: null, source: 'cli' };

/** The service itself (the initial key at start-up). */
export const SYSTEM_ACTOR: AuditActor = { actorKeyId: null, requestId: null, source: 'system' };

/** The actor of an HTTP request: its authenticated caller (a key or a principal) and its request id. */
export function actorOf(req: RequestScope): AuditActor {
  return callerActor(req.caller, req.id ?? null);
}

/** The actor a caller is: a key's id, or a principal's. */
export function callerActor(caller: CallerRef | undefined, requestId: string | null): AuditActor {
  const principal = caller?.kind === 'principal';
  return {
    actorKeyId: caller && !principal ? caller.id : null,
    actorPrincipalId: caller && principal ? caller.id : null,
    ...(principal && caller.client_id ? { actorClientId: caller.client_id } : {}),
    requestId,
  };
}

/** What `@Actor()` gives a handler: the actor of the request it serves. */
export function actorOfRoute(_data: unknown, context: ExecutionContext): AuditActor {
  return actorOf(context.switchToHttp().getRequest<RequestScope>());
}

/** The route's actor as a handler parameter: `@Actor() actor: AuditActor`. */
export const Actor = createParamDecorator(actorOfRoute);
