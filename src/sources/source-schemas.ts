type Schema = Record<string, unknown>;

/**
 * An object of a parsed schema. Not `isPlainObject`: parts of a listing may come from another
 * realm's JSON.parse (undici's, in a test's sandbox), whose Object.prototype is another one.
 */
function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keywords that apply a schema to the same value (not to a part of it). */
const IN_PLACE_ONE = ['not', 'if', 'then', 'else'];
const IN_PLACE_MANY = ['allOf', 'anyOf', 'oneOf'];
/** Keywords whose values are data, not schemas. */
const DATA = new Set(['const', 'enum', 'default', 'examples']);

/** The schema a local `$ref` (`#`, `#/a/b`) points at in `root`, or undefined. */
function resolve(root: Schema, ref: string): Schema | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    node = typeof node === 'object' && node !== null ? (node as Schema)[key] : undefined;
  }
  return isObject(node) ? node : undefined;
}

/** The schemas `node` applies to the very value it checks: its `$ref`, `allOf`, `not` … */
function inPlace(root: Schema, node: Schema): { to: Schema; ref?: string }[] {
  const next: { to: Schema; ref?: string }[] = [];
  if (typeof node.$ref === 'string') {
    const to = resolve(root, node.$ref);
    if (to) next.push({ to, ref: node.$ref });
  }
  for (const key of IN_PLACE_ONE) if (isObject(node[key])) next.push({ to: node[key] });
  for (const key of IN_PLACE_MANY) {
    const list = node[key];
    if (Array.isArray(list)) for (const each of list) if (isObject(each)) next.push({ to: each });
  }
  return next;
}

/** Every schema object in `root` (data keywords' values left out), walked without recursion. */
function schemasOf(root: Schema): Schema[] {
  const found: Schema[] = [];
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) stack.push(...(node as unknown[]));
    else if (isObject(node)) {
      found.push(node);
      for (const [key, value] of Object.entries(node)) if (!DATA.has(key)) stack.push(value);
    }
  }
  return found;
}

/**
 * The `$ref` that closes a cycle of schemas applied in place (`{"$ref": "#"}`, `a` → `b` → `a`):
 * such a schema would check a value against itself for ever (ajv overflows its stack compiling or
 * validating it). A recursion that goes into a part of the value (`items: {"$ref": "#"}`) is a
 * tree's schema and fine. Undefined when there is none.
 */
export function refCycle(root: Schema): string | undefined {
  const done = new Set<Schema>();
  for (const start of schemasOf(root)) {
    if (done.has(start)) continue;
    // Depth-first along the in-place edges, with an explicit stack; `path` is the current chain.
    const path = new Set<Schema>([start]);
    const stack = [{ node: start, next: inPlace(root, start), at: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (top.at >= top.next.length) {
        stack.pop();
        path.delete(top.node);
        done.add(top.node);
        continue;
      }
      const { to, ref } = top.next[top.at++];
      if (path.has(to)) return ref ?? '#';
      if (done.has(to)) continue;
      path.add(to);
      stack.push({ node: to, next: inPlace(root, to), at: 0 });
    }
  }
  return undefined;
}
