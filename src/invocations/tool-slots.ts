import { Injectable, Optional } from '@nestjs/common';
import type { CapacityOutcome } from '../kernel/http/request-scope';
import { MetricsService } from '../metrics';
import type { ToolRuntimeSettings } from '../tools/index';

/** What admission to a tool weighs: its slots, its queue, and one caller's share of each. */
export type ToolCapacity = Pick<ToolRuntimeSettings, 'concurrency' | 'queue' | 'perCallerShare'>;

/** One caller's calls of one tool on this instance. */
class CallerHold {
  slots = 0;
  waiting = 0;
}

/** How many callers a tool's lane remembers, at least, before it forgets those holding nothing. */
const IDLE_CALLERS = 1_000;

/** A tool's calls on this instance: how many hold a slot, and those waiting for one, in order. */
class Lane {
  /** Admissions holding a slot: reserved, running, or abandoned by their call but not yet settled. */
  holding = 0;
  readonly waiting: Admission[] = [];
  /**
   * By caller, what each holds now. A caller stays after its last call (forgetting it at once
   * would cost every call of a tool nobody waits for an insertion and a deletion): idle callers
   * are forgotten when there are many (ToolSlots.remember).
   */
  readonly callers = new Map<string, CallerHold>();
  /** Callers with at least one call in `waiting`. */
  waitingCallers = 0;

  constructor(
    readonly tool: string,
    public capacity: ToolCapacity,
  ) {}
}

/**
 * A call's place at its tool: a slot (it may start now), or a place in the queue (it starts when a
 * slot frees). Taken before the call is charged its quota, given back on any refusal after that,
 * and held until the handler settles, even after the call was answered (a 504).
 */
export class Admission {
  private state: 'slot' | 'queued' | 'released' = 'queued';
  private promoted?: () => void;

  /** @internal Made by ToolSlots. */
  constructor(
    private readonly lane: Lane,
    /** @internal Whose call it is. */
    readonly hold: CallerHold,
    private readonly slots: ToolSlots,
  ) {}

  /** @internal The admission holds a slot from now on. */
  grant(): void {
    this.state = 'slot';
    this.promoted?.();
  }

  /** Whether it waits in the queue (it has no slot yet). */
  get queued(): boolean {
    return this.state === 'queued';
  }

  /**
   * Resolves once the admission holds a slot (at once, if it does). `signal` aborting while it
   * waits gives its place up and rejects with the signal's reason.
   */
  started(signal?: AbortSignal): Promise<void> {
    if (this.state === 'slot') return Promise.resolve();
    if (this.state === 'released') return Promise.reject(new Error('Admission released'));
    return new Promise((resolve, reject) => {
      const abandon = () => {
        this.release();
        reject(signal?.reason instanceof Error ? signal.reason : new Error('Admission abandoned'));
      };
      if (signal?.aborted) return abandon();
      signal?.addEventListener('abort', abandon, { once: true });
      this.promoted = () => {
        signal?.removeEventListener('abort', abandon);
        resolve();
      };
    });
  }

  /** Gives the slot (or the place in the queue) back; a waiting call gets the slot. */
  release(): void {
    const was = this.state;
    if (was === 'released') return;
    this.state = 'released';
    this.slots.released(this.lane, this, was === 'slot');
  }
}

/** A caller's share of `places`: `ceil(places × share)`, at least one of any there are. */
function shareOf(places: number, share: number): number {
  if (places === 0) return 0;
  // Rounded first: 10 × 0.3 is 3.0000000000000004 in binary floating point, whose ceiling is 4.
  return Math.max(1, Math.ceil(Math.round(places * share * 1e9) / 1e9));
}

/**
 * The capacity of each tool on this instance and who gets it (docs/long-running-calls.md,
 * "Capacity: 503" and "A fair share per caller"); the whole rule is `reserve` and `nextToStart`:
 *
 * - `concurrency` calls run at once and `queue` more wait; a call that finds both full is refused
 *   (503, not charged). A caller alone may use all of it.
 * - While another caller has a call waiting, one caller may hold at most its share of the queue
 *   (`ceil(perCallerShare × queue)` places): past it, its new calls are refused (`fair_share`).
 * - A call of a caller within its share is admitted even to a full queue, as long as the places
 *   callers hold within their shares are fewer than `queue` (places held past a share do not count
 *   against the others): the queue grows by the newcomers' shares, never past twice its size.
 * - A freed slot goes to the first waiting call of a caller under its share of the slots
 *   (`ceil(perCallerShare × concurrency)`), else to the first of the caller holding the fewest
 *   (a caller alone waiting gets them all, in order).
 * - An accepted call is never evicted: the share decides only who is admitted and who starts next.
 *
 * "Another caller waiting" is read off the queue, and the call arriving is its own caller's: a
 * caller whose calls merely run is not waiting, and its next call is the one arriving. In memory:
 * a slot is this instance's to give.
 */
@Injectable()
export class ToolSlots {
  private readonly lanes = new Map<string, Lane>();

  constructor(@Optional() metrics?: MetricsService) {
    metrics?.gaugeToolSlots(() => this.usage());
  }

  /**
   * A slot, else a place in the queue, for a call of `caller` (the key or principal whose share
   * it counts against); else why the call gets neither: the tool is full (`capacity`), or the
   * caller holds its share of the queue while another caller waits (`fair_share`).
   */
  reserve(tool: string, capacity: ToolCapacity, caller: string): Admission | CapacityOutcome {
    let lane = this.lanes.get(tool);
    if (!lane) this.lanes.set(tool, (lane = new Lane(tool, capacity)));
    lane.capacity = capacity;
    let hold = lane.callers.get(caller);
    if (lane.holding < capacity.concurrency && lane.waiting.length === 0) {
      hold ??= this.remember(lane, caller);
      const admission = new Admission(lane, hold, this);
      lane.holding++;
      hold.slots++;
      admission.grant();
      return admission;
    }
    const waits = hold?.waiting ?? 0;
    const othersWait = lane.waitingCallers > (waits > 0 ? 1 : 0);
    const queueShare = shareOf(capacity.queue, capacity.perCallerShare);
    if (othersWait && waits >= queueShare) return 'fair_share';
    if (
      lane.waiting.length >= capacity.queue &&
      (waits >= queueShare || placesWithinShares(lane, queueShare) >= capacity.queue)
    ) {
      return 'capacity';
    }
    hold ??= this.remember(lane, caller);
    const admission = new Admission(lane, hold, this);
    if (hold.waiting++ === 0) lane.waitingCallers++;
    lane.waiting.push(admission);
    return admission;
  }

  /**
   * The waiting call a freed slot goes to, taken out of the queue: the first of a caller under
   * its share of the slots, else the first of the caller holding the fewest.
   */
  private nextToStart(lane: Lane): Admission | undefined {
    const waiting = lane.waiting;
    if (lane.waitingCallers < 2) return waiting.shift();
    const { concurrency, perCallerShare } = lane.capacity;
    const slotShare = shareOf(concurrency, perCallerShare);
    let best = 0;
    for (let at = 0; at < waiting.length; at++) {
      const slots = waiting[at].hold.slots;
      if (slots < slotShare) {
        best = at;
        break;
      }
      if (slots < waiting[best].hold.slots) best = at;
    }
    return waiting.splice(best, 1)[0];
  }

  /** @internal A admission let go: its slot passes to the next waiting call, else is freed. */
  released(lane: Lane, admission: Admission, heldSlot: boolean): void {
    const hold = admission.hold;
    if (heldSlot) {
      hold.slots--;
      const next = this.nextToStart(lane);
      if (next) {
        this.leftQueue(lane, next.hold);
        next.hold.slots++;
        next.grant();
      } else {
        lane.holding--;
      }
    } else {
      const at = lane.waiting.indexOf(admission);
      if (at >= 0) lane.waiting.splice(at, 1);
      this.leftQueue(lane, hold);
    }
  }

  /** A caller's first call since it was forgotten; idle callers are forgotten when too many. */
  private remember(lane: Lane, caller: string): CallerHold {
    const { concurrency, queue } = lane.capacity;
    // At least half of those remembered are idle then: each forgets many at a time.
    if (lane.callers.size >= Math.max(IDLE_CALLERS, 2 * (concurrency + 2 * queue))) {
      for (const [name, held] of lane.callers) {
        if (held.slots === 0 && held.waiting === 0) lane.callers.delete(name);
      }
    }
    const hold = new CallerHold();
    lane.callers.set(caller, hold);
    return hold;
  }

  private leftQueue(lane: Lane, hold: CallerHold): void {
    if (--hold.waiting === 0) lane.waitingCallers--;
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

/** The places in the queue its callers hold within their shares. */
function placesWithinShares(lane: Lane, queueShare: number): number {
  let places = 0;
  for (const hold of lane.callers.values()) places += Math.min(hold.waiting, queueShare);
  return places;
}
