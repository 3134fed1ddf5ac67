import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
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
   */
  async check(invocation: Invocation): Promise<void> {
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
