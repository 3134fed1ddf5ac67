import { Body, Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Tool, ToolController } from '../../src/tools/tool.decorator';
import { BoolField, StringField } from '../../src/kernel/validation/fields';

/**
 * A tool whose runs the test holds and releases by hand: to have a call still running when its
 * retry arrives, without sleeping. `gate.runs` counts how often the tool itself ran.
 */
export class Gate {
  runs = 0;
  private open = true;
  private waiting: (() => void)[] = [];
  private onRun: (() => void)[] = [];

  close(): void {
    this.open = false;
  }

  release(): void {
    this.open = true;
    for (const resume of this.waiting.splice(0)) resume();
  }

  /** Resolves once the tool has run `n` times in all. */
  ran(n: number): Promise<void> {
    if (this.runs >= n) return Promise.resolve();
    return new Promise((resolve) => this.onRun.push(() => this.runs >= n && resolve()));
  }

  async pass(): Promise<void> {
    this.runs += 1;
    for (const notify of this.onRun) notify();
    if (!this.open) await new Promise<void>((resume) => this.waiting.push(resume));
  }
}

export const gate = new Gate();

export class GatedInput {
  @StringField({ description: 'Anything.', optional: true, maxLength: 100_000 })
  label?: string;

  @BoolField({ description: 'Fail with an unexpected error (500).', optional: true })
  fail?: boolean;
}

export class GatedResult {
  @ApiProperty() label: string;
  @ApiProperty() run: number;
}

@ToolController()
export class GatedController {
  @Tool({
    name: 'gated',
    description: 'Waits at the gate.',
    input: GatedInput,
    output: GatedResult,
  })
  async run(@Body() input: GatedInput): Promise<GatedResult> {
    await gate.pass();
    if (input.fail) throw new Error('the gated tool broke');
    return { label: input.label ?? '', run: gate.runs };
  }
}

@Module({ controllers: [GatedController] })
export class GatedToolModule {}
