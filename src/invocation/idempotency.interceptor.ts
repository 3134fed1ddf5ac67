import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { catchError, from, mergeMap, Observable } from 'rxjs';
import type { ApiRequest } from '../auth/authenticated-key';
import { IdempotencyService } from './idempotency';

/**
 * Keeps the answer of an idempotent REST tool call once the handler is done: the returned body
 * (200), or what the one exception filter will make of the error (the tool's own 4xx, a 400 from
 * validation, which runs inside the handler's call, a 500). Registered globally; it acts only
 * where the pipeline's idempotency step claimed the call, which it does for tool calls only.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const claim = context.switchToHttp().getRequest<ApiRequest>().idempotency;
    if (!claim) return next.handle();
    return next.handle().pipe(
      mergeMap((body: unknown) =>
        from(this.idempotency.keep(claim, 200, toJson(body)).then(() => body)),
      ),
      catchError((error: unknown) =>
        from(
          this.idempotency.keepError(claim, error).then(() => {
            throw error;
          }),
        ),
      ),
    );
  }
}

/** The body as the client reads it after serialisation. */
function toJson(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body ?? null)) as unknown;
}
