import { ApiProperty } from '@nestjs/swagger';

export type ComponentStatus = 'ok' | 'error';
export type RedisStatus = 'ok' | 'not_configured' | 'error';

class StoreHealth {
  @ApiProperty({ enum: ['ok', 'error'] })
  status: ComponentStatus;
}

class RedisHealth {
  @ApiProperty({
    enum: ['ok', 'not_configured', 'error'],
    description: '`not_configured` when REDIS_URL is unset (the embedded store is in use).',
  })
  status: RedisStatus;
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
