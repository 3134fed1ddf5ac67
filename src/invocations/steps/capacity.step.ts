import { Injectable, Optional } from '@nestjs/common';
import type { Caller } from '../../subjects';
import type { CapacityOutcome } from '../../kernel/http/request-scope';
import { ApiError } from '../../kernel/errors/api-error';
import { MetricsService } from '../../metrics';
import { ToolRegistry } from '../../tools/index';
import {
  Call,
  callerOf,
  Decisions,
  InvocationStep,
  PipelineStep,
  STEP_ORDER,
  StepDecision,
} from '../call';
import { ToolSlots } from '../tool-slots';

/**
 * The 503 of a tool at capacity: the tool never ran, and the call is not charged its quota. A
 * caller past its fair share gets the same answer; `reason` tells them apart for the metrics.
 */
export class AtCapacity extends ApiError {
  constructor(
    tool: string,
    readonly reason: CapacityOutcome = 'capacity',
  ) {
    super(503, `Tool '${tool}' is at capacity; retry shortly.`, { 'Retry-After': 1 });
  }
}

/** Whose fair share of a tool a call counts against: its key's or its principal's. */
export function shareHolder(caller: Caller): string {
  return caller.id;
}

/**
 * A tool call's place at its tool, taken before anything is charged (so that a call refused at
 * capacity is never charged its quota, and the rate step can count the quota with the rate): a
 * slot, or a place in the tool's queue, within its caller's fair share (ToolSlots holds the rule).
 * Never refuses: the refusal waits for CapacityStep, after the rate limit and the idempotency step
 * (a replay is served whatever the capacity).
 */
@PipelineStep({ order: STEP_ORDER.admission })
@Injectable()
export class AdmissionStep implements InvocationStep {
  constructor(
    private readonly slots: ToolSlots,
    private readonly registry: ToolRegistry,
  ) {}

  run(call: Call, decided: Readonly<Decisions>): StepDecision {
    const tool = call.tool === undefined ? undefined : this.registry.get(call.tool);
    if (!tool) return;
    const place = this.slots.reserve(tool.name, tool.runtime, shareHolder(callerOf(decided)));
    return typeof place === 'string' ? { noPlace: place } : { ticket: place };
  }
}

/**
 * A tool with no free slot and a full queue, or a caller past its fair share of it: 503 with
 * `Retry-After: 1`, counted against the rate limit only (docs/long-running-calls.md).
 */
@PipelineStep({ order: STEP_ORDER.capacity })
@Injectable()
export class CapacityStep implements InvocationStep {
  constructor(@Optional() private readonly metrics?: MetricsService) {}

  run(call: Call, decided: Readonly<Decisions>): void {
    if (call.tool === undefined || decided.noPlace === undefined) return;
    this.metrics?.observeAtCapacity(call.tool);
    throw new AtCapacity(call.tool, decided.noPlace);
  }
}
