import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthModule } from './auth/auth.module';
import { InitialKeyBootstrap } from './auth/initial-key';
import { ScopesGuard } from './auth/scopes.guard';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { ApiValidationPipe } from './errors/validation';
import { RouteTable } from './http/route-table';
import { HealthModule } from './health/health.module';
import { LimitsModule } from './limits/limits.module';
import { QuotaGuard } from './limits/quota.guard';
import { KeyRateLimitGuard } from './limits/rate-limit.guard';
import { LoggingModule } from './logging/logging.module';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { SettingsModule } from './settings/settings.module';
import { StoreModule } from './store/store.module';
import { ConfigModule } from './tools/config/config.module';
import { DoctorModule } from './tools/doctor/doctor.module';
import { GreetModule } from './tools/greet/greet.module';
import { ToolsModule } from './tools/tools.module';

/** The tools: one line each. The server and the stdio MCP server (src/mcp/mcp.stdio.ts) mount these. */
export const TOOL_MODULES = [GreetModule, ConfigModule, DoctorModule];

@Module({
  imports: [
    SettingsModule,
    LoggingModule,
    StoreModule,
    AuthModule,
    LimitsModule,
    ToolsModule,
    HealthModule,
    MetricsModule,
    McpModule,
    ...TOOL_MODULES,
  ],
  providers: [
    // The order of checks on every call: authentication, scope, rate limit, quota; then validation.
    { provide: APP_GUARD, useExisting: ApiKeyGuard },
    { provide: APP_GUARD, useExisting: ScopesGuard },
    { provide: APP_GUARD, useExisting: KeyRateLimitGuard },
    { provide: APP_GUARD, useExisting: QuotaGuard },
    { provide: APP_PIPE, useClass: ApiValidationPipe },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    InitialKeyBootstrap,
    RouteTable,
  ],
})
export class AppModule {}
