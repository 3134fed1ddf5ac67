import { Injectable, Optional } from '@nestjs/common';
import { MetricsService } from '../../metrics/metrics.service';
import type { ToolRuntimeSettings } from '../../tools/tool.registry';

/** A tool's calls on this instance: how many hold a slot, and those waiting for one, in order. */
class Lane {
  /** Tickets holding a slot: reserved, running, or abandoned by their call but not yet settled. */
  holding = 0;
  readonly waiting: Ticket[] = [];

  constructor(readonly tool: string) {}
}

/**
 * A call's place at its tool: a slot (it may start now), or a place in the queue (it starts when a
 * slot frees). Taken before the call is charged its quota, given back on any refusal after that,
 * and held until the handler settles, even after the call was answered (a 504).
 */
export class Ticket {
  private state: 'slot' | 'queued' | 'released' = 'queued';
  private promoted?: () => void;

  /** @internal Made by ToolSlots. */
  constructor(
    private readonly lane: Lane,
    private readonly slots: ToolSlots,
  ) {}

  /** @internal The ticket holds a slot from now on. */
  grant(): void {
    this.state = 'slot';
    this.promoted?.();
  }

  /** Whether it waits in the queue (it has no slot yet). */
  get queued(): boolean {
    return this.state === 'queued';
  }

  /**
   * Resolves once the ticket holds a slot (at once, if it does). `signal` aborting while it
   * waits gives its place up and rejects with the signal's reason.
   */
  started(signal?: AbortSignal): Promise<void> {
    if (this.state === 'slot') return Promise.resolve();
    if (this.state === 'released') return Promise.reject(new Error('Ticket released'));
    return new Promise((resolve, reject) => {
      const abandon = () => {
        this.release();
        reject(signal?.reason instanceof Error ? signal.reason : new Error('Ticket abandoned'));
      };
      if (signal?.aborted) return abandon();
      signal?.addEventListener('abort', abandon, { once: true });
      this.promoted = () => {
        signal?.removeEventListener('abort', abandon);
        resolve();
      };
    });
  }

  /** Gives the slot (or the place in the queue) back; the next waiting call gets the slot. */
  release(): void {
    const was = this.state;
    if (was === 'released') return;
    this.state = 'released';
    this.slots.released(this.lane, this, was === 'slot');
  }
}

/**
 * The capacity of each tool on this instance (docs/long-running-calls.md): `concurrency` calls at
 * once, `queue` more waiting in order; past both a call is refused at once (503, not charged).
 * In memory: a slot is this instance's to give.
 */
@Injectable()
export class ToolSlots {
  private readonly lanes = new Map<string, Lane>();

  constructor(@Optional() metrics?: MetricsService) {
    metrics?.gaugeToolSlots(() => this.usage());
  }

  /** A slot, else a place in the queue, else undefined: the tool is at capacity. */
  reserve(
    tool: string,
    runtime: Pick<ToolRuntimeSettings, 'concurrency' | 'queue'>,
  ): Ticket | undefined {
    let lane = this.lanes.get(tool);
    if (!lane) {
      lane = new Lane(tool);
      this.lanes.set(tool, lane);
    }
    const ticket = new Ticket(lane, this);
    if (lane.holding < runtime.concurrency && lane.waiting.length === 0) {
      lane.holding++;
      ticket.grant();
      return ticket;
    }
    if (lane.waiting.length >= runtime.queue) return undefined;
    lane.waiting.push(ticket);
    return ticket;
  }

  /** @internal A ticket let go: its slot passes to the first waiting, else is freed. */
  released(lane: Lane, ticket: Ticket, heldSlot: boolean): void {
    if (!heldSlot) {
      const at = lane.waiting.indexOf(ticket);
      if (at >= 0) lane.waiting.splice(at, 1);
      return;
    }
    const next = lane.waiting.shift();
    if (next) next.grant();
    else lane.holding--;
  }

  /** Per tool, the calls holding a slot and those waiting: for /metrics. */
  usage(): { tool: string; inFlight: number; queued: number }[] {
    return [...this.lanes.values()].map((lane) => ({
      tool: lane.tool,
      inFlight: lane.holding,
      queued: lane.waiting.length,
    }));
  }
}
