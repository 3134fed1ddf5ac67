export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

/**
 * Settles as `work` does, or rejects with a TimeoutError after `ms`: a check of something that hangs
 * still answers. A synchronous throw of `work` becomes a rejection; the timer never keeps the
 * process alive.
 */
export function withTimeout<T>(work: () => Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(message)), ms);
    timer.unref();
  });
  return Promise.race([Promise.resolve().then(work), limit]).finally(() => clearTimeout(timer));
}
