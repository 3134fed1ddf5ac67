import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Public } from '../../kernel/auth/auth.decorators';

/** Prometheus scrapes this; it holds no key, key id or secret, so it is open like /health. */
@ApiTags('operations')
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly registry: Registry) {}

  @Get()
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getMetrics',
    summary: 'Prometheus metrics, text exposition format.',
  })
  @ApiProduces(Registry.PROMETHEUS_CONTENT_TYPE)
  @ApiOkResponse({ schema: { type: 'string' }, description: 'The metrics.' })
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
