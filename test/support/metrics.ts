/** Reads Prometheus text: the sum of a metric's samples whose labels include the given ones. */
export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample || sample[1] !== name) continue;
    const found = Object.fromEntries(
      [...(sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [
        m[1],
        m[2],
      ]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) {
      total += Number(sample[3]);
    }
  }
  return total;
}
