import { Module } from '@nestjs/common';
import { SourcesModule } from '../sources';
import { HealthService } from './health.service';

@Module({ imports: [SourcesModule], providers: [HealthService], exports: [HealthService] })
export class HealthModule {}
