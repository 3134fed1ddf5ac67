import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { KeysModule } from '../auth/auth.module';
import { LimitsModule } from '../limits/limits.module';
import { InvocationGuard } from './invocation.guard';
import { InvocationPipeline } from './invocation.pipeline';
import { AuthenticateStep } from './steps/authenticate.step';
import { QuotaStep } from './steps/quota.step';
import { RateLimitStep } from './steps/rate-limit.step';
import { ScopeStep } from './steps/scope.step';
import { ToolInvoker } from './tool.invoker';

/**
 * The one pipeline of a call: its steps (authenticate, scope, rate limit, quota; idempotency slots
 * in between rate limit and quota), the REST adapter (InvocationGuard, registered as the global
 * guard by the root module) and the tool invoker the MCP transports adapt to.
 */
@Module({
  imports: [DiscoveryModule, KeysModule, LimitsModule],
  providers: [
    InvocationPipeline,
    AuthenticateStep,
    ScopeStep,
    RateLimitStep,
    QuotaStep,
    InvocationGuard,
    ToolInvoker,
  ],
  exports: [InvocationPipeline, InvocationGuard, ToolInvoker],
})
export class InvocationModule {}
