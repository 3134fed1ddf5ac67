import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module';
import { ApiKeysService } from './api-keys.service';
import { AuthFailureLimiter } from './auth-failure.limiter';
import { AuditController } from './audit.controller';
import { AuthController } from './auth.controller';
import { Challenges } from './challenges';
import { UsageController } from './usage.controller';

/** Keys and failed-authentication counts without HTTP: for the pipeline, the CLI and stdio MCP. */
@Module({
  imports: [LimitsModule],
  providers: [ApiKeysService, AuthFailureLimiter, Challenges],
  exports: [ApiKeysService, AuthFailureLimiter, Challenges],
})
export class KeysModule {}

/**
 * The routes about keys (`/api/v1/auth/*`, `/api/v1/usage`). Authentication and scope checks of a
 * request are steps of the invocation pipeline (src/invocation/).
 */
@Module({
  imports: [KeysModule, LimitsModule],
  controllers: [AuthController, UsageController, AuditController],
  exports: [KeysModule],
})
export class AuthModule {}
