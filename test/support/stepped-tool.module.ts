import { Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { ToolContext } from '../../src/tools/tool-runner';
import { Tool, ToolController } from '../../src/tools/tool.decorator';
import { IntField } from '../../src/kernel/validation/fields';

/**
 * The steps of the `stepped` tool, released one at a time by the test: a long-running call whose
 * progress moves only when the test says so, never by the clock.
 */
export class Steps {
  private released = 0;
  private waiting: (() => void)[] = [];

  /** Lets one waiting step go (or the next one to wait). */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.released += 1;
  }

  /** Resolves when a step is released; rejects when `signal` aborts first. */
  next(signal: AbortSignal): Promise<void> {
    if (this.released > 0) {
      this.released -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', stop);
        resolve();
      };
      const stop = () => {
        this.waiting = this.waiting.filter((w) => w !== go);
        reject(signal.reason as Error);
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      this.waiting.push(go);
    });
  }
}

export const steps = new Steps();

export class SteppedInput {
  @IntField({ description: 'Steps to go through.', optional: true, minimum: 1, maximum: 10 })
  steps?: number;
}

export class SteppedResult {
  @ApiProperty() steps: number;
}

@ToolController()
export class SteppedController {
  @Tool({
    name: 'stepped',
    description:
      'Reports its progress a step at a time; each step waits for the test to release it.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    input: SteppedInput,
    output: SteppedResult,
    // The test releases every step: no deadline of the clock's decides anything.
    timeoutMs: 600_000,
    async: 'required',
  })
  async run(input: SteppedInput, context: ToolContext): Promise<SteppedResult> {
    const total = input.steps ?? 3;
    for (let step = 1; step <= total; step++) {
      await steps.next(context.signal);
      context.progress(step, total, `step ${step} of ${total}`);
    }
    return { steps: total };
  }
}

@Module({ controllers: [SteppedController] })
export class SteppedToolModule {}
