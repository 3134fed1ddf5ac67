import { Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { ToolContext } from '../../src/tools/tool-runner';
import { Tool, ToolController } from '../../src/tools/tool.decorator';
import { StringField } from '../../src/kernel/validation/fields';

/**
 * Where the calls of the `shared` tool wait once they hold a slot, until the test lets each one
 * through by its label (or all at once): a test counts slots and the order calls start in, never
 * time. A call's signal aborting (a deadline, a shutdown) lets it through too.
 */
export class Turnstile {
  /** The labels of the calls that got a slot, in the order they started. */
  readonly started: string[] = [];
  private readonly held = new Map<string, () => void>();
  private open = false;

  /** Lets the held call labelled `label` finish. */
  let(label: string): void {
    const resume = this.held.get(label);
    if (!resume) throw new Error(`No call labelled '${label}' is held`);
    this.held.delete(label);
    resume();
  }

  /** Lets every call held now, and every call from now on, through. */
  openAll(): void {
    this.open = true;
    for (const resume of this.held.values()) resume();
    this.held.clear();
  }

  /** Closed again, and forgets what it saw. */
  reset(): void {
    this.openAll();
    this.open = false;
    this.started.length = 0;
  }

  async pass(label: string, signal: AbortSignal): Promise<void> {
    this.started.push(label);
    if (this.open) return;
    await new Promise<void>((resume) => {
      this.held.set(label, resume);
      signal.addEventListener('abort', () => resume(), { once: true });
    });
  }
}

export const turnstile = new Turnstile();

export class SharedInput {
  @StringField({ description: 'Names the call at the turnstile.', maxLength: 100 })
  label: string;
}

export class SharedResult {
  @ApiProperty() label: string;
}

@ToolController()
export class SharedToolController {
  @Tool({
    name: 'shared',
    description: 'Waits at the turnstile; four slots, eight places in the queue.',
    input: SharedInput,
    output: SharedResult,
    concurrency: 4,
    queue: 8,
  })
  async run(input: SharedInput, context: ToolContext): Promise<SharedResult> {
    await turnstile.pass(input.label, context.signal);
    return { label: input.label };
  }
}

@Module({ controllers: [SharedToolController] })
export class SharedToolModule {}
