import { ApiProperty } from '@nestjs/swagger';

export type ComponentStatus = 'ok' | 'error';
export type RedisStatus = 'ok' | 'not_configured' | 'error';

class StoreHealth {
  @ApiProperty({ enum: ['ok', 'error'] })
  status: ComponentStatus;
}

export type RedisMode = 'single' | 'sentinel' | 'cluster';

export class RedisHealth {
  @ApiProperty({
    enum: ['ok', 'not_configured', 'error'],
    description:
      '`not_configured` when no Redis is configured (the embedded store is in use; `mode` and `nodes` are then absent).',
  })
  status: RedisStatus;

  @ApiProperty({
    enum: ['single', 'sentinel', 'cluster'],
    required: false,
    description:
      'The topology: `REDIS_URL` (single), `REDIS_SENTINELS` (sentinel) or `REDIS_CLUSTER_NODES` (cluster).',
  })
  mode?: RedisMode;

  @ApiProperty({
    required: false,
    minimum: 0,
    example: 2,
    description:
      "Redis servers holding the data, as the probe saw them: 1 for a single Redis, the master and its connected replicas under Sentinel, every node of a cluster; 0 when the probe failed. No addresses: they are `doctor`'s.",
  })
  nodes?: number;
}

class HealthComponents {
  @ApiProperty({ type: StoreHealth }) store: StoreHealth;
  @ApiProperty({ type: RedisHealth }) redis: RedisHealth;
}

export class HealthView {
  @ApiProperty({
    enum: ['ok', 'degraded'],
    description:
      '`degraded` (answered 503) when a component is in error or the service is stopping.',
  })
  status: 'ok' | 'degraded';

  @ApiProperty({ example: '1.0.0' }) version: string;

  @ApiProperty({ description: 'When the checks ran, ISO 8601 UTC.' }) timestamp: string;

  @ApiProperty({ type: HealthComponents }) components: HealthComponents;
}

export class Liveness {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
}
