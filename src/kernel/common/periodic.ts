/** What a periodic task is told: its name for the log, how often, and its work. */
export interface PeriodicOptions {
  /** How often the work runs, in ms, counted from one start to the next. */
  everyMs: number;
  /** One pass of the work. A pass still running when the next is due is not started again. */
  work: () => Promise<unknown>;
  /** A pass that threw: logged by the owner, never thrown from a timer. */
  onError: (error: unknown) => void;
  /** Whether the first pass runs at start (the default) or after the first interval. */
  atStart?: boolean;
}

/**
 * Background work done every interval in a process that serves (a purge, a lease's renewal, a
 * poll of an outbox): one pass at a time, its failures handed to its owner, its timer never
 * keeping the process alive, and stopped with the application (the pass under way awaited).
 * Every feature's upkeep runs on it, so they all stop, overlap and fail the same way.
 */
export class Periodic {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  private stopped = false;

  constructor(private readonly options: PeriodicOptions) {}

  /** Starts the timer (once); the first pass runs now unless `atStart` is false. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.runNow(), this.options.everyMs);
    this.timer.unref();
    if (this.options.atStart !== false) void this.runNow();
  }

  /** A pass now, unless one is under way: the promise of the pass (its error already handed on). */
  runNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.pass ??= this.options
      .work()
      .then(
        () => undefined,
        (error: unknown) => this.options.onError(error),
      )
      .finally(() => (this.pass = undefined));
    return this.pass;
  }

  /** Whether a pass is under way. */
  get busy(): boolean {
    return this.pass !== undefined;
  }

  /** Whether the application is stopping: a long pass checks it between its steps. */
  get stopping(): boolean {
    return this.stopped;
  }

  /** Stops the timer and waits for the pass under way; no pass starts after. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.pass;
  }
}
