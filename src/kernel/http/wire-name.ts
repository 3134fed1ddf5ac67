/** Header names as they go on the wire, lower case, made once per name (see `wireName`). */
const WIRE_NAMES = new Map<string, string>();

/**
 * A header's name in lower case, as Fastify's `reply.header()` sent it and HTTP/2 requires, made
 * once per name: Node lower-cases every name it is given (setHeader, then again when it writes
 * the head), and a name already in lower case and kept is neither copied nor looked up in V8's
 * string table again (docs/performance.md, "Why the hot path is written as it is"). Bounded: the checks' header names are a fixed few.
 */
export function wireName(name: string): string {
  let wire = WIRE_NAMES.get(name);
  if (wire === undefined) {
    wire = name.toLowerCase();
    if (WIRE_NAMES.size < 256) WIRE_NAMES.set(name, wire);
  }
  return wire;
}
