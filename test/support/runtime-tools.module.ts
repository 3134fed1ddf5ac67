import { Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { ApiError } from '../../src/kernel/errors/api-error';
import type { ToolContext } from '../../src/tools/tool-runner';
import { Tool, ToolController } from '../../src/tools/tool.decorator';
import { IntField, StringField } from '../../src/kernel/validation/fields';
import { Gate } from './gated-tool.module';

/**
 * Test-only tools for the runtime of real tools (docs/long-running-calls.md), registered the way
 * the test-only pipeline step is: a slow tool that reports progress and obeys its signal, a
 * hanging tool that ignores it, a tool that waits for its signal, a failing tool, a narrow tool
 * (one slot, one place in the queue) held at a gate, a tool that always runs in the background and
 * one that never does. `probe` records what the handlers saw, for the tests to assert on.
 */
export const probe = {
  /** The reason of each aborted signal, by the label of the call that saw it. */
  aborted: new Map<string, string>(),
  /** Labels of calls whose handler finished after its call was answered (a late result). */
  late: [] as string[],
  /** Calls of the narrow tool that started running. */
  narrowRuns: 0,
  /** Labels of slow calls whose handler started. */
  started: new Set<string>(),
  reset(): void {
    this.aborted.clear();
    this.late.length = 0;
    this.narrowRuns = 0;
    this.started.clear();
  },
};

/** Resolves once `signal` aborts, recording its reason under `label`. */
function aborted(signal: AbortSignal, label: string): Promise<never> {
  return new Promise((_, reject) => {
    const stop = () => {
      const reason = signal.reason as { name?: string } | undefined;
      probe.aborted.set(label, reason?.name ?? 'unknown');
      reject(signal.reason as Error);
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}

/** Resolves after `ms`, or at once when `signal` aborts (no timer left behind a stopped call). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), {
      once: true,
    });
  });

export const narrowGate = new Gate();

export class RuntimeInput {
  @StringField({ description: 'Names the call in the probe.', optional: true, maxLength: 100 })
  label?: string;

  @IntField({ description: 'Milliseconds of work.', optional: true, minimum: 0, maximum: 600_000 })
  ms?: number;

  @IntField({ description: 'Steps of progress.', optional: true, minimum: 1, maximum: 100 })
  steps?: number;
}

export class RuntimeResult {
  @ApiProperty() label: string;
  @ApiProperty() slept: number;
}

@ToolController()
export class RuntimeToolsController {
  @Tool({
    name: 'slow',
    description: 'Works for `ms` in `steps`, reporting progress; stops when its signal aborts.',
    input: RuntimeInput,
    output: RuntimeResult,
    timeoutMs: 5_000,
  })
  async slow(input: RuntimeInput, context: ToolContext): Promise<RuntimeResult> {
    const label = input.label ?? 'slow';
    probe.started.add(label);
    const steps = input.steps ?? 1;
    const ms = input.ms ?? 100;
    const stopped = aborted(context.signal, label);
    stopped.catch(() => undefined);
    for (let step = 1; step <= steps; step++) {
      await Promise.race([sleep(ms / steps, context.signal), stopped]);
      context.progress(step, steps, `step ${step}`);
    }
    return { label, slept: ms };
  }

  @Tool({
    name: 'hanging',
    description: 'Works for `ms` whatever its signal says (a deadline of 300 ms).',
    input: RuntimeInput,
    output: RuntimeResult,
    timeoutMs: 300,
  })
  async hanging(input: RuntimeInput, context: ToolContext): Promise<RuntimeResult> {
    const label = input.label ?? 'hanging';
    context.signal.addEventListener('abort', () => {
      probe.aborted.set(label, (context.signal.reason as { name?: string }).name ?? '?');
    });
    await sleep(input.ms ?? 1_000);
    probe.late.push(label);
    return { label, slept: input.ms ?? 1_000 };
  }

  @Tool({
    name: 'obedient',
    description: 'Waits until its signal aborts (a deadline of 300 ms), then stops.',
    input: RuntimeInput,
    output: RuntimeResult,
    timeoutMs: 300,
  })
  async obedient(input: RuntimeInput, context: ToolContext): Promise<RuntimeResult> {
    probe.started.add(input.label ?? 'obedient');
    await aborted(context.signal, input.label ?? 'obedient');
    return { label: 'never', slept: 0 };
  }

  @Tool({
    name: 'broken',
    description: 'Fails: 502 with its own detail, or an unexpected error after `ms`.',
    input: RuntimeInput,
    output: RuntimeResult,
  })
  async broken(input: RuntimeInput): Promise<RuntimeResult> {
    await sleep(input.ms ?? 0);
    if (input.label === 'unexpected') throw new Error('the broken tool broke');
    throw new ApiError(502, 'The upstream model is unavailable');
  }

  @Tool({
    name: 'narrow',
    description: 'One call at a time, one waiting; held at the test gate.',
    input: RuntimeInput,
    output: RuntimeResult,
    concurrency: 1,
    queue: 1,
  })
  async narrow(input: RuntimeInput): Promise<RuntimeResult> {
    probe.narrowRuns++;
    await narrowGate.pass();
    return { label: input.label ?? 'narrow', slept: 0 };
  }

  @Tool({
    name: 'background',
    description: 'Always runs in the background (async: required).',
    input: RuntimeInput,
    output: RuntimeResult,
    async: 'required',
  })
  async background(input: RuntimeInput, context: ToolContext): Promise<RuntimeResult> {
    return this.slow(input, context);
  }

  @Tool({
    name: 'inline',
    description: 'Never runs in the background (async: never).',
    input: RuntimeInput,
    output: RuntimeResult,
    async: 'never',
  })
  async inline(input: RuntimeInput, context: ToolContext): Promise<RuntimeResult> {
    return this.slow(input, context);
  }
}

@Module({ controllers: [RuntimeToolsController] })
export class RuntimeToolsModule {}
