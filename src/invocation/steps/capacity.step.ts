import { Injectable, Optional } from '@nestjs/common';
import { ApiError } from '../../errors/api-error';
import { MetricsService } from '../../metrics/metrics.service';
import { ToolRegistry } from '../../tools/tool.registry';
import { Call, Decisions, InvocationStep, PipelineStep, STEP_ORDER, StepDecision } from '../call';
import { ToolSlots } from '../runtime/tool-slots';

/** The 503 of a tool at capacity: the tool never ran, and the call is not charged its quota. */
export function atCapacity(tool: string): ApiError {
  return new ApiError(503, `Tool '${tool}' is at capacity; retry shortly.`, { 'Retry-After': 1 });
}

/**
 * A tool call's place at its tool, taken before anything is charged (so that a call refused at
 * capacity is never charged its quota, and the rate step can count the quota with the rate): a
 * slot, or a place in the tool's queue. Never refuses: the refusal waits for CapacityStep, after
 * the rate limit and the idempotency step (a replay is served whatever the capacity).
 */
@PipelineStep({ order: STEP_ORDER.admission })
@Injectable()
export class AdmissionStep implements InvocationStep {
  constructor(
    private readonly slots: ToolSlots,
    private readonly registry: ToolRegistry,
  ) {}

  run(call: Call): StepDecision {
    const tool = call.tool === undefined ? undefined : this.registry.get(call.tool);
    if (!tool) return;
    return { ticket: this.slots.reserve(tool.name, tool.runtime) };
  }
}

/**
 * A tool with no free slot and a full queue: 503 with `Retry-After: 1`, counted against the rate
 * limit only (docs/long-running-calls.md).
 */
@PipelineStep({ order: STEP_ORDER.capacity })
@Injectable()
export class CapacityStep implements InvocationStep {
  constructor(
    private readonly registry: ToolRegistry,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  run(call: Call, decided: Readonly<Decisions>): void {
    if (call.tool === undefined || decided.ticket !== undefined) return;
    if (!this.registry.get(call.tool)) return;
    this.metrics?.observeAtCapacity(call.tool);
    throw atCapacity(call.tool);
  }
}
