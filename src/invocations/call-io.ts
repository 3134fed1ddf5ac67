import type { HttpException } from '@nestjs/common';
import type { ValidationIssue } from '../kernel/errors/validation-issue';
import { ApiError, IdempotentReplay, ValidationFailed } from '../kernel/errors/api-error';
import type { InvocationRecord } from './invocation.store';
import type { CallResponse, Call } from './call';
import type { ClientWatch, ProgressSink, ToolActor } from './execution';
import type { CallControl } from './call-control';
import type { ChargedCredits } from './invocation-records';

/**
 * Who calls a tool over MCP: what its transport knows of the call, the tool and its arguments
 * aside; and, when the transport writes the answer's headers, where to hand them once known.
 */
export type ToolCaller = Omit<Call, 'scopes' | 'tool' | 'bearerErrorCodes' | 'body'> & {
  onAnswer?: (answer: CallResponse) => void;
};

/**
 * The rate refusal of a call whose transport left the rate to it (`rateLimitCounted: false`: an MCP POST of
 * one tools/call): the transport's own refusal (the POST's HTTP 429), not the call's result.
 */
export class PostRefused extends Error {
  constructor(readonly refusal: HttpException) {
    super(refusal.message);
  }
}

/** How a transport runs one tool call: its controls, where its progress goes, in the background or not. */
export interface CallIo {
  control: CallControl;
  progress?: ProgressSink;
  /** Watches the client while a call that does not end at once waits or runs (ClientWatch). */
  watch?: ClientWatch;
  /** Run in the background: wait up to `waitMs` for its end before answering Accepted. */
  background?: { id: string; waitMs: number };
  /** Whom the tool runs as, once its checks have admitted the call. */
  actor?: ToolActor;
  /** What the call was charged, once its checks have counted it. */
  charged?: ChargedCredits;
  /** Unties the call from the request that carried it (an MCP call that became a task). */
  detach?: () => void;
}

/** A call running in the background: REST answers it 202 with its view and `Location`. */
export class Accepted {
  constructor(readonly record: InvocationRecord) {}
}

/**
 * A kept answer as this transport's caller gets it: the body of a 2xx, else the error REST
 * answered (a 400 list as a validation failure again). Any other error passes through.
 */
export function replayedAnswer(error: IdempotentReplay): unknown {
  const status = error.getStatus();
  if (status < 300) return error.body;
  const detail = (error.body as { detail?: unknown } | null)?.detail;
  if (status === 400 && Array.isArray(detail))
    throw new ValidationFailed(detail as ValidationIssue[]);
  throw new ApiError(status, detail);
}

/** What a client reads after JSON serialisation: no undefined fields, dates as strings, no classes. */
export function asJsonBody(result: unknown): unknown {
  return JSON.parse(JSON.stringify(result ?? null)) as unknown;
}
