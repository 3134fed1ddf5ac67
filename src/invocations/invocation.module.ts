import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { SubjectsModule } from '../subjects';
import { LimitsModule } from '../limits';
import { WebhooksModule } from '../webhooks';
import { RunsModule } from '../runs';
import { OAuthModule } from '../oauth';
import { InvocationGuard } from './invocation.guard';
import { InvocationEvents } from './invocation-events';
import { IdempotencyModule } from '../idempotency';
import { InvocationStore } from './invocation.store';
import { INVOCATION_STORES } from './invocation.stores';
import { AuthModule } from '../auth';
import { CallChecks } from './call-checks';
import { ToolExecution } from './execution';
import { CallSettlement } from './call-settlement';
import { LongRunningCalls } from './long-running-calls';
import { ToolSlots } from './tool-slots';
import { ToolInvoker } from './tool.invoker';
import { RunCalls } from './run-calls';

/**
 * The checks of every call (CallChecks: authentication, scope, the modules' own, admission, rate
 * limit, idempotency, capacity, credits), the REST adapter of keyed routes (InvocationGuard,
 * registered as the global guard by the root module), and the runtime of a tool call (ToolInvoker)
 * that the REST tool routes (src/transports/rest/tool-routes.ts) and both MCP transports adapt to.
 * Global: every transport of the process reaches the one runtime.
 */
@Global()
@Module({
  imports: [
    DiscoveryModule,
    SubjectsModule,
    LimitsModule,
    OAuthModule,
    IdempotencyModule,
    WebhooksModule,
    RunsModule,
    AuthModule,
  ],
  providers: [
    ...INVOCATION_STORES,
    CallChecks,
    ToolSlots,
    ToolExecution,
    CallSettlement,
    InvocationEvents,
    LongRunningCalls,
    RunCalls,
    InvocationGuard,
    ToolInvoker,
  ],
  exports: [
    CallChecks,
    InvocationGuard,
    ToolInvoker,
    LongRunningCalls,
    ToolExecution,
    InvocationStore,
    IdempotencyModule,
  ],
})
export class InvocationModule {}
