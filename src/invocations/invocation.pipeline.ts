import { HttpException, Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { discoverInOrder } from '../kernel/common/discovery';
import { SubjectRecordChanged } from '../limits';
import { CallResponse, Call, Decisions, InvocationStep, PipelineStep } from './call';

/** A record that keeps changing under every attempt is answered 503 (SubjectRecordChanged) after these. */
const MAX_ATTEMPTS = 3;

/**
 * The ordered checks of every keyed call, defined once: the steps marked @PipelineStep anywhere in
 * the application, sorted by their order. REST (InvocationGuard, the tool routes) and MCP over HTTP
 * and stdio (ToolInvoker) run the same steps, so a check added here reaches every transport.
 */
@Injectable()
export class InvocationPipeline implements OnModuleInit {
  private steps: InvocationStep[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    this.steps = discoverInOrder<InvocationStep>(this.discovery, PipelineStep);
  }

  /**
   * Runs every step in order and answers what they decided; the first refusal (an ApiError) ends
   * the call, after what the steps before it claimed is given back. `answer` receives what the
   * answer carries, refused or not: its headers (X-RateLimit-*, X-Quota-*), and the caller once known.
   *
   * A call decided on a cached copy of its key's record (a shared store's) starts over once on the
   * record itself when the copy may have misled it: its count found the record changed (nothing
   * was counted), or it was refused its scope (a change on another instance may have granted it).
   */
  async check(call: Call, answer: CallResponse = { headers: {} }): Promise<Decisions> {
    const headers = answer.headers;
    for (let attempt = 1; ; attempt++) {
      const decided: Decisions = { headers };
      try {
        await this.run(call, decided, attempt > 1);
        answer.caller = decided.caller;
        answer.quota = decided.charge?.state;
        return decided;
      } catch (error) {
        answer.caller = decided.caller;
        decided.ticket?.release();
        await decided.claim?.abandon();
        if (attempt === MAX_ATTEMPTS || !decidedOnCachedRecord(decided, error)) throw error;
        for (const name of Object.keys(headers)) delete headers[name];
      }
    }
  }

  private async run(call: Call, decided: Decisions, fresh: boolean): Promise<void> {
    for (const step of this.steps) {
      const pending = step.run(call, decided, { fresh });
      const decision = pending instanceof Promise ? await pending : pending;
      if (decision) {
        const { headers, ...rest } = decision;
        Object.assign(decided, rest);
        if (headers) Object.assign(decided.headers, headers);
      }
    }
  }
}

function decidedOnCachedRecord(decided: Decisions, error: unknown): boolean {
  if (error instanceof SubjectRecordChanged) return true;
  return (
    decided.callerFromCache === true && error instanceof HttpException && error.getStatus() === 403
  );
}
