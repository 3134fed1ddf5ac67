import { Module } from '@nestjs/common';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysService } from './api-keys.service';
import { AuthController } from './auth.controller';
import { ScopesGuard } from './scopes.guard';
import { LimitsModule } from '../limits/limits.module';

/** Keys and their checks; the guards are registered globally in AppModule, in order. */
@Module({
  imports: [LimitsModule],
  controllers: [AuthController],
  providers: [ApiKeysService, ApiKeyGuard, ScopesGuard],
  exports: [ApiKeysService, ApiKeyGuard, ScopesGuard],
})
export class AuthModule {}

/** Key management without HTTP: for the operator CLI. */
@Module({
  providers: [ApiKeysService],
  exports: [ApiKeysService],
})
export class KeysModule {}
