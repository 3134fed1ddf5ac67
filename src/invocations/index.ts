/**
 * The invocations feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { AtCapacity } from './at-capacity';
export { CallControl } from './call-control';
export { Accepted, PostRefused } from './call-io';
export type { CallIo, ToolCaller } from './call-io';
export type { CallResponse, Call } from './call';
export { CallCheck } from './call-check';
export { CallChecks } from './call-checks';
export type { AdmittedCall } from './call-checks';
export type { ClientWatch } from './execution';
export { INVOCATION_KEEP_MS, newInvocationId, ownsInvocation } from './invocation-records';
export { CountsOwnRateLimit } from './invocation.decorators';
export { InvocationView } from './invocation.dto';
export { InvocationGuard } from './invocation.guard';
export { InvocationModule } from './invocation.module';
export { INVOCATION_STATUSES, InvocationStore } from './invocation.store';
export type { InvocationPosition, InvocationRecord, InvocationStatus } from './invocation.store';
export {
  INVOCATIONS_PATH,
  INVOCATION_ID,
  invocationLocation,
  invocationView,
  invocationsAfter,
  isFinished,
} from './invocation.view';
export { LongRunningCalls } from './long-running-calls';
export { ToolInvoker } from './tool.invoker';
