import { HttpException, Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { KeyRecordChanged } from '../store/accounting/call-counter';
import { Invocation, InvocationStep, PipelineStep } from './invocation';

/**
 * The ordered checks of every keyed call, defined once: the steps marked @PipelineStep anywhere in
 * the application, sorted by their order. REST (InvocationGuard) and MCP over HTTP and stdio
 * (ToolInvoker) run the same steps, so a check added here reaches every transport.
 */
@Injectable()
export class InvocationPipeline implements OnModuleInit {
  private steps: InvocationStep[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    this.steps = this.discovery
      .getProviders({ metadataKey: PipelineStep.KEY })
      .filter((wrapper) => wrapper.isDependencyTreeStatic() && wrapper.instance)
      .map((wrapper) => ({
        step: wrapper.instance as InvocationStep,
        order: this.discovery.getMetadataByDecorator(PipelineStep, wrapper)?.order ?? 1000,
      }))
      .sort((a, b) => a.order - b.order)
      .map(({ step }) => step);
  }

  /**
   * Runs every step in order; the first refusal (an ApiError) ends the invocation, and what the
   * steps before it asked to undo on a refusal is undone first.
   *
   * A call decided on a kept copy of its key's record (a shared store's) starts over once on the
   * record itself when the copy may have misled it: its count found the record changed (nothing
   * was counted), or it was refused its scope (a change on another instance may have granted it).
   */
  async check(invocation: Invocation): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.run(invocation);
      } catch (error) {
        if (attempt === MAX_ATTEMPTS || !decidedOnKeptKey(invocation, error)) throw error;
        Object.assign(invocation, {
          key: undefined,
          keyKept: undefined,
          freshKey: true,
          quotaCounted: undefined,
          headers: {},
          keepAnswer: undefined,
          onRefused: undefined,
        } satisfies Partial<Invocation>);
      }
    }
  }

  private async run(invocation: Invocation): Promise<void> {
    try {
      for (const step of this.steps) {
        const pending = step.run(invocation);
        if (pending) await pending;
      }
    } catch (error) {
      for (const undo of invocation.onRefused ?? []) await undo();
      throw error;
    }
  }
}

/** A record that keeps changing under every attempt is answered 503 (KeyRecordChanged) after these. */
const MAX_ATTEMPTS = 3;

function decidedOnKeptKey(invocation: Invocation, error: unknown): boolean {
  if (error instanceof KeyRecordChanged) return true;
  return invocation.keyKept === true && error instanceof HttpException && error.getStatus() === 403;
}
