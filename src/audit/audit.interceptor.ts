import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { actAs } from './audit.context';

/** What this interceptor reads of a request: its id and the key the pipeline authenticated. */
interface KeyedRequest {
  id?: string;
  apiKey?: { id: string };
}

/**
 * Every HTTP handler runs as its caller for the audit trail: the key the pipeline authenticated
 * and the request's id, so a service deep below (configuration, doctor) records who acted without
 * being handed the request. Nest binds the handler to the async context of `next.handle()`.
 */
@Injectable()
export class AuditActorInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<KeyedRequest>();
    return actAs({ actorKeyId: req.apiKey?.id ?? null, requestId: req.id ?? null }, () =>
      next.handle(),
    );
  }
}
