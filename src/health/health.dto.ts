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

export type SourceState = 'starting' | 'ready' | 'unavailable' | 'error';

const SOURCE_STATES: SourceState[] = ['starting', 'ready', 'unavailable', 'error'];

/** A source on /health: its state and how many tools it serves now. */
export interface SourceHealth {
  state: SourceState;
  tools: number;
}

export class SourcesHealth {
  @ApiProperty({
    enum: ['ok', 'degraded'],
    description:
      '`degraded` while a source is not `ready`. An upstream is not this service: a degraded source leaves `/health` 200 (its calls answer 503 on their own).',
  })
  status: 'ok' | 'degraded';

  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: {
        state: { type: 'string', enum: SOURCE_STATES },
        tools: { type: 'integer', minimum: 0 },
      },
      required: ['state', 'tools'],
    },
    example: { everything: { state: 'ready', tools: 12 } },
    description:
      "Each source of this instance by name: its state and how many tools it serves (its error is doctor's).",
  })
  sources: Record<string, SourceHealth>;
}

class HealthComponents {
  @ApiProperty({ type: StoreHealth }) store: StoreHealth;
  @ApiProperty({ type: RedisHealth }) redis: RedisHealth;
  @ApiProperty({
    type: SourcesHealth,
    required: false,
    description: 'Where the process runs sources (the server).',
  })
  sources?: SourcesHealth;
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
