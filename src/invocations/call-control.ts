/** Why a call was stopped before its handler settled. */
export type StopReason = 'deadline' | 'client-gone' | 'cancelled' | 'shutdown';

const MESSAGES: Record<StopReason, string> = {
  deadline: 'The call did not finish within its deadline',
  'client-gone': 'The client went away',
  cancelled: 'The call was cancelled',
  shutdown: 'The instance is shutting down',
};

/**
 * The signal's reason, as the platform's own aborts give it (a DOMException): a deadline is a
 * `TimeoutError` (as `AbortSignal.timeout()`'s), anything else an `AbortError`.
 */
export function abortReason(reason: StopReason): DOMException {
  return new DOMException(MESSAGES[reason], reason === 'deadline' ? 'TimeoutError' : 'AbortError');
}

/** A call stopped before its handler settled: what it is answered instead (StopReason). */
export class CallStopped extends Error {
  constructor(readonly reason: StopReason) {
    super(MESSAGES[reason]);
    this.name = 'CallStopped';
  }
}

/**
 * The controls of one tool call: its deadline, and the signal its handler is given, aborted when
 * the call is stopped (deadline, client gone, cancel, shutdown). The AbortController and the
 * promise a stop settles are made only when something asks for them: most calls finish before
 * anyone looks, and a greet should not pay for what it never uses.
 */
export class CallControl {
  private reason?: StopReason;
  private controller?: AbortController;
  private timer?: NodeJS.Timeout;
  private stopped?: Promise<never>;
  private rejectStopped?: (error: CallStopped) => void;
  private listeners?: ((reason: StopReason) => void)[];

  /** The signal handed to the handler: aborted once the call is stopped. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(abortReason(this.reason));
    }
    return this.controller.signal;
  }

  /** Why the call was stopped; undefined while it was not. */
  get stopReason(): StopReason | undefined {
    return this.reason;
  }

  /** Stops the call at `ms` from now (a deadline), unless it is over or stopped before; once. */
  deadline(ms: number): void {
    if (this.timer || this.reason) return;
    this.timer = setTimeout(() => this.stop('deadline'), ms);
  }

  /** Stops the call: the signal aborts, whatever waits for the handler is answered `reason`. */
  stop(reason: StopReason): void {
    if (this.reason) return;
    this.reason = reason;
    clearTimeout(this.timer);
    this.controller?.abort(abortReason(reason));
    this.rejectStopped?.(new CallStopped(reason));
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) listener(reason);
  }

  /** Called once if the call is stopped (at once if it already was). */
  onStop(listener: (reason: StopReason) => void): void {
    if (this.reason) listener(this.reason);
    else (this.listeners ??= []).push(listener);
  }

  /** The call is over: its deadline no longer runs. */
  finish(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * What the handler answers, unless the call is stopped first: then CallStopped, and the
   * handler's late answer is dropped.
   */
  settle<T>(running: Promise<T>): Promise<T> {
    if (this.reason) return Promise.reject(new CallStopped(this.reason));
    this.stopped ??= new Promise<never>((_, reject) => (this.rejectStopped = reject));
    return Promise.race([running, this.stopped]);
  }
}
