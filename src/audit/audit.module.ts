import { Global, Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module';
import { AuditService } from './audit.service';

/** The audit trail, for every module that changes keys or settings (global: one trail). */
@Global()
@Module({
  imports: [LimitsModule],
  providers: [AuditService],
  exports: [AuditService],
})
export class AuditModule {}
