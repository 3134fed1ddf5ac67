import { applyDecorators, Controller, Get, Header, Res } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { Public } from '../../kernel/auth/auth.decorators';
import { HealthView, Liveness, HealthService } from '../../health';

/** Both health routes answer alike; each needs its own operation id in the OpenAPI document. */
function HealthRoute(path: string, operationId: string): MethodDecorator {
  return applyDecorators(
    Get(path),
    Header('Cache-Control', 'no-store'),
    ApiOperation({ operationId, summary: 'Whether the service and its store are healthy.' }),
    ApiOkResponse({ type: HealthView, description: 'Healthy.' }),
    ApiServiceUnavailableResponse({ type: HealthView, description: 'Degraded: see `components`.' }),
  );
}

/** Open to everyone, never rate limited or metered: load balancers and operators probe it. */
@ApiTags('health')
@Public()
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @HealthRoute('health', 'getHealth')
  root(@Res({ passthrough: true }) res: ReplyControl): Promise<HealthView> {
    return this.answer(res);
  }

  @HealthRoute('api/v1/health', 'getHealthVersioned')
  versioned(@Res({ passthrough: true }) res: ReplyControl): Promise<HealthView> {
    return this.answer(res);
  }

  /** Readiness: whether to send this instance traffic; the same answer as /health. */
  @HealthRoute('health/ready', 'getReadiness')
  ready(@Res({ passthrough: true }) res: ReplyControl): Promise<HealthView> {
    return this.answer(res);
  }

  /** Liveness: the process serves requests, whatever its dependencies (never restart it for a store outage). */
  @Get('health/live')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ operationId: 'getLiveness', summary: 'Whether the process serves requests.' })
  @ApiOkResponse({ type: Liveness, description: 'The process serves requests.' })
  live(): Liveness {
    return { status: 'ok' };
  }

  private async answer(res: ReplyControl): Promise<HealthView> {
    const view = await this.health.check();
    res.status(view.status === 'ok' ? 200 : 503);
    return view;
  }
}
