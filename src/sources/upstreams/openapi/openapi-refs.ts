/**
 * The `$ref`s of one OpenAPI document, resolved inside it only (`#/…`, RFC 6901 pointers), into
 * plain trees a tool list can hold: each copy is bounded in nodes and depth, a cycle is found where
 * it closes, and whatever would leave the document (another file, a URL) is refused. Each refusal
 * is a LeftOut naming why, so that the operation that needed it is left out, never the document.
 */

/** Why an operation cannot be served: the text shown in the source's omitted list. */
export class LeftOut extends Error {}

/** What one copy may grow to: a document's shared `$ref`s could otherwise expand exponentially. */
export interface CopyBudget {
  /** nodes (objects, arrays and values) left for this copy */
  nodes: number;
  /** how deep a tree may nest */
  readonly maxDepth: number;
  /** the budget's size, for the refusal's text */
  readonly maxNodes: number;
}

export function copyBudget(maxNodes: number, maxDepth: number): CopyBudget {
  return { nodes: maxNodes, maxNodes, maxDepth };
}

/** How many `$ref` → `$ref` hops a reference may take before it is taken for a loop. */
const MAX_REF_HOPS = 32;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value a local `#/…` pointer names; an external or dangling one is a LeftOut. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#'))
    throw new LeftOut(`an external $ref (${ref.slice(0, 200)}) is not read`);
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    throw new LeftOut(`its $ref ${ref.slice(0, 200)} is not a valid pointer`);
  }
  if (pointer !== '' && !pointer.startsWith('/')) {
    throw new LeftOut(`its $ref ${ref.slice(0, 200)} is not a JSON pointer (#/…)`);
  }
  let value: unknown = document;
  for (const token of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    const next: unknown = Array.isArray(value)
      ? value[Number(key)]
      : isObject(value) && Object.hasOwn(value, key)
        ? value[key]
        : undefined;
    if (next === undefined) throw new LeftOut(`its $ref ${ref.slice(0, 200)} points at nothing`);
    value = next;
  }
  return value;
}

/**
 * A Parameter, Request Body or Path Item object behind its `$ref`s (chains of them followed), or
 * the object itself when it has none.
 */
export function dereferenced(document: unknown, value: unknown): unknown {
  let current = value;
  for (let hop = 0; isObject(current) && typeof current.$ref === 'string'; hop++) {
    if (hop === MAX_REF_HOPS) throw new LeftOut(`its $ref ${current.$ref} never ends`);
    current = resolvePointer(document, current.$ref);
  }
  return current;
}

/** Keywords whose value is a map of names to schemas: the names are data, the values schemas. */
const SCHEMA_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
/** Keywords whose value is one schema, or a list of them. */
const SCHEMA_VALUES = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
  'prefixItems',
]);
/** OpenAPI's own annotations that are not JSON Schema: a validator in strict mode refuses them. */
const OPENAPI_ONLY = new Set(['example', 'xml', 'externalDocs', 'discriminator', 'nullable']);

/** One document's schemas, copied into input schemas. */
export class SchemaCopier {
  constructor(
    private readonly document: unknown,
    /** 3.0's schemas are an extended subset of JSON Schema draft 5; 3.1's are 2020-12's. */
    private readonly version: '3.0' | '3.1',
  ) {}

  /** A plain copy of `schema` with its `$ref`s resolved, within `budget`; a LeftOut if it cannot be. */
  copy(schema: unknown, budget: CopyBudget): Json {
    return this.schema(schema, budget, [], 0);
  }

  private count(budget: CopyBudget, depth: number): void {
    budget.nodes -= 1;
    if (budget.nodes < 0) {
      throw new LeftOut(
        `its input schema is larger than ${budget.maxNodes} nodes once its $refs are resolved`,
      );
    }
    if (depth > budget.maxDepth) {
      throw new LeftOut(`its input schema is nested deeper than ${budget.maxDepth} levels`);
    }
  }

  private schema(value: unknown, budget: CopyBudget, refs: string[], depth: number): Json {
    this.count(budget, depth);
    if (Array.isArray(value))
      return value.map((item) => this.schema(item, budget, refs, depth + 1));
    if (!isObject(value)) return this.data(value, budget, depth);
    if (typeof value.$ref === 'string') return this.referenced(value, budget, refs, depth);
    const copy: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (OPENAPI_ONLY.has(key) || key.startsWith('x-')) continue;
      if (SCHEMA_MAPS.has(key) && isObject(item)) {
        const map: JsonObject = {};
        for (const [name, schema] of Object.entries(item)) {
          map[name] = this.schema(schema, budget, refs, depth + 1);
        }
        copy[key] = map;
      } else if (SCHEMA_VALUES.has(key)) {
        copy[key] = this.schema(item, budget, refs, depth + 1);
      } else {
        copy[key] = this.data(item, budget, depth + 1);
      }
    }
    return this.version === '3.0' ? jsonSchemaOf30(value, copy) : copy;
  }

  /**
   * The schema a `$ref` names, copied. A ref already being copied above this one is a cycle: a
   * tool's input must be a tree. 3.1 lets a `$ref` have sibling keywords (both apply: allOf); in
   * 3.0 they are ignored, but a description is kept in both.
   */
  private referenced(value: JsonObject, budget: CopyBudget, refs: string[], depth: number): Json {
    const ref = value.$ref as string;
    if (refs.includes(ref)) {
      throw new LeftOut(`its schema is cyclic (${ref} contains itself)`);
    }
    const target = this.schema(resolvePointer(this.document, ref), budget, [...refs, ref], depth);
    const { $ref: _ref, ...siblings } = value;
    const keys = Object.keys(siblings);
    if (keys.length === 0) return target;
    if (this.version === '3.1' && keys.some((key) => key !== 'description' && key !== 'summary')) {
      const rest = this.schema(siblings, budget, refs, depth) as JsonObject;
      return { ...rest, allOf: [target] };
    }
    if (typeof siblings.description === 'string' && isObject(target)) {
      return { ...target, description: siblings.description };
    }
    return target;
  }

  /** A keyword's value that is data (enum, default, examples, const …): copied as it is, counted. */
  private data(value: unknown, budget: CopyBudget, depth: number): Json {
    if (Array.isArray(value)) return value.map((item) => this.countedData(item, budget, depth + 1));
    if (isObject(value)) {
      const copy: JsonObject = {};
      for (const [key, item] of Object.entries(value)) {
        copy[key] = this.countedData(item, budget, depth + 1);
      }
      return copy;
    }
    return value === undefined ? null : (value as Json);
  }

  private countedData(value: unknown, budget: CopyBudget, depth: number): Json {
    this.count(budget, depth);
    return this.data(value, budget, depth);
  }
}

/**
 * 3.0's keywords that JSON Schema spells otherwise: `nullable: true` adds `null` to the types,
 * a boolean `exclusiveMinimum`/`exclusiveMaximum` (draft 4) becomes the number it qualifies.
 */
function jsonSchemaOf30(original: JsonObject, copy: JsonObject): JsonObject {
  if (original.nullable === true && copy.type !== undefined) {
    const types = Array.isArray(copy.type) ? copy.type : [copy.type];
    copy.type = types.includes('null') ? types : [...types, 'null'];
  }
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof copy[flag] !== 'boolean') continue;
    if (copy[flag] === true && typeof copy[bound] === 'number') {
      copy[flag] = copy[bound];
      delete copy[bound];
    } else {
      delete copy[flag];
    }
  }
  return copy;
}
