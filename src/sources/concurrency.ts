/**
 * At most `limit` calls of a source at once, across its tools; the others wait in turn (a slot
 * freed goes to the first waiting). What waits is bounded by the tools' own queues (ToolSlots).
 */
export function concurrencyLimit(limit: number): <T>(run: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const first = waiting.shift();
    if (first) first();
    else running--;
  };
  return async <T>(run: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await run();
    } finally {
      release();
    }
  };
}
