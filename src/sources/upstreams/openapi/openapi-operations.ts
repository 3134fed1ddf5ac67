import type { UpstreamTool, UpstreamToolList } from '../upstream';
import type { OpenApiDocument } from './openapi-document';
import {
  copyBudget,
  type CopyBudget as Budget,
  dereferenced,
  LeftOut,
  SchemaCopier,
} from './openapi-refs';

/** One parameter as a call sends it. */
export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  /** query parameters: `form` (the default) or `spaceDelimited` / `pipeDelimited` */
  style?: string;
  explode?: boolean;
}

/** What a call of an operation's tool needs to build its request. */
export interface OpenApiOperation {
  name: string;
  method: string;
  path: string;
  parameters: OperationParameter[];
  /** the operation takes a JSON body (the input's `body`) */
  hasBody: boolean;
}

/** The operations of a document, as tools and as what calling them needs. */
export interface OperationList extends UpstreamToolList {
  operations: Map<string, OpenApiOperation>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** An input schema's size once its `$ref`s are resolved, and all of a document's together. */
export const MAX_TOOL_NODES = 10_000;
export const MAX_LIST_NODES = 500_000;
export const MAX_SCHEMA_DEPTH = 64;
export const MAX_OPERATIONS = 2_000;

/** Headers that say how the request travels or who sends it: the service's, never a caller's. */
export const RESERVED_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'content-type',
  'accept',
  'cookie',
  'traceparent',
  'tracestate',
]);

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema of the first JSON media type of a `content` map, or undefined when none is JSON. */
function jsonContent(content: unknown): { schema: unknown } | undefined {
  if (!isObject(content)) return undefined;
  const type = Object.keys(content).find((media) =>
    /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(media),
  );
  if (type === undefined) return undefined;
  const media = content[type];
  return { schema: isObject(media) && media.schema !== undefined ? media.schema : {} };
}

/** An operation's parameters, the path item's first, the operation's replacing same (name, in). */
function parametersOf(root: unknown, pathItem: Obj, operation: Obj): Obj[] {
  const byKey = new Map<string, Obj>();
  for (const list of [pathItem.parameters, operation.parameters]) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new LeftOut('its parameters are not a list');
    for (const item of list) {
      const parameter = dereferenced(root, item);
      if (!isObject(parameter) || typeof parameter.name !== 'string') {
        throw new LeftOut('a parameter has no name');
      }
      byKey.set(`${String(parameter.in)}:${parameter.name}`, parameter);
    }
  }
  return [...byKey.values()];
}

/** Builds one tool; the copier's budget is shared by every tool of the document. */
class ToolBuilder {
  private readonly copier: SchemaCopier;
  listNodes = MAX_LIST_NODES;

  constructor(private readonly document: OpenApiDocument) {
    this.copier = new SchemaCopier(document.root, document.version);
  }

  build(method: string, path: string, pathItem: Obj, operation: Obj) {
    if (this.listNodes <= 0) {
      throw new LeftOut(`the document's input schemas pass ${MAX_LIST_NODES} nodes in all`);
    }
    const budget = copyBudget(Math.min(MAX_TOOL_NODES, this.listNodes), MAX_SCHEMA_DEPTH);
    try {
      return this.input(method, path, { pathItem, operation }, budget);
    } finally {
      // A tool left out spent its part too: a hostile document costs the list's budget at most.
      this.listNodes -= budget.maxNodes - Math.max(0, budget.nodes);
    }
  }

  private input(
    method: string,
    path: string,
    at: { pathItem: Obj; operation: Obj },
    budget: Budget,
  ) {
    const { pathItem, operation } = at;
    const properties: Obj = {};
    const required: string[] = [];
    const taken = new Map<string, string>();
    const take = (name: string, where: string) => {
      const other = taken.get(name.toLowerCase());
      if (other) throw new LeftOut(`its input names ${name} twice (${other} and ${where})`);
      taken.set(name.toLowerCase(), where);
    };
    const parameters: OperationParameter[] = [];
    for (const parameter of parametersOf(this.document.root, pathItem, operation)) {
      const sent = this.parameter(parameter, budget, properties, required);
      if (!sent) continue;
      take(sent.name, `a ${sent.in} parameter`);
      parameters.push(sent);
    }
    const hasBody = this.body(operation, budget, properties, required);
    if (hasBody) take('body', 'the request body');
    const inputSchema: Obj = { type: 'object', properties, additionalProperties: false };
    if (required.length > 0) inputSchema.required = required;
    return { inputSchema, operation: { method, path, parameters, hasBody } };
  }

  /** Adds a parameter to the input; undefined when it is not one a call sends (cookie, reserved). */
  private parameter(parameter: Obj, budget: Budget, props: Obj, req: string[]) {
    const name = parameter.name as string;
    const place = parameter.in;
    const isRequired = parameter.required === true || place === 'path';
    const reserved = place === 'header' && RESERVED_HEADERS.has(name.toLowerCase());
    if (place === 'cookie' || reserved) {
      if (!isRequired) return undefined;
      throw new LeftOut(
        `its required ${String(place)} parameter ${name} is not sent by the service`,
      );
    }
    if (place !== 'path' && place !== 'query' && place !== 'header') {
      throw new LeftOut(`its parameter ${name} is in ${String(place)}, not path, query or header`);
    }
    const raw = parameter.schema ?? jsonContent(parameter.content)?.schema ?? {};
    const schema = this.copier.copy(raw, budget);
    props[name] =
      typeof parameter.description === 'string' && isObject(schema) && !schema.description
        ? { ...schema, description: parameter.description }
        : schema;
    if (isRequired) req.push(name);
    const sent: OperationParameter = { name, in: place };
    if (typeof parameter.style === 'string') sent.style = parameter.style;
    if (typeof parameter.explode === 'boolean') sent.explode = parameter.explode;
    return sent;
  }

  /** Adds the JSON request body as `body`; false when the operation takes none. */
  private body(operation: Obj, budget: Budget, props: Obj, req: string[]) {
    if (operation.requestBody === undefined) return false;
    const requestBody = dereferenced(this.document.root, operation.requestBody);
    if (!isObject(requestBody)) throw new LeftOut('its request body is not an object');
    const json = jsonContent(requestBody.content);
    if (!json) {
      if (requestBody.required !== true) return false;
      throw new LeftOut('its required request body is not JSON');
    }
    const schema = this.copier.copy(json.schema, budget);
    props.body =
      typeof requestBody.description === 'string' && isObject(schema) && !schema.description
        ? { ...schema, description: requestBody.description }
        : schema;
    if (requestBody.required === true) req.push('body');
    return true;
  }
}

function describe(tool: UpstreamTool, operation: Obj): void {
  const summary = typeof operation.summary === 'string' ? operation.summary.trim() : '';
  const description = typeof operation.description === 'string' ? operation.description.trim() : '';
  if (summary) tool.title = summary;
  const text = [summary, description].filter((part) => part !== '').join('\n\n');
  if (text) tool.description = text;
}

/**
 * The document's operations as tools: each with an `operationId`, its input one object of its
 * path, query and header parameters and its JSON body as `body`; GET and HEAD read-only. An
 * operation that cannot be served is left out, with why, and the others still are.
 */
export function operationsOf(document: OpenApiDocument): OperationList {
  const list: OperationList = { tools: [], omitted: [], operations: new Map() };
  const paths = document.root.paths;
  if (paths !== undefined && !isObject(paths)) {
    list.omitted.push({ name: 'paths', reason: 'the paths of the document are not an object' });
    return list;
  }
  const builder = new ToolBuilder(document);
  for (const [path, item] of Object.entries(paths ?? {})) {
    let pathItem: unknown;
    try {
      pathItem = dereferenced(document.root, item);
    } catch (error) {
      if (!(error instanceof LeftOut)) throw error;
      list.omitted.push({ name: path, reason: error.message });
      continue;
    }
    if (!isObject(pathItem)) continue;
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (isObject(operation)) add(list, builder, { method, path, pathItem, operation });
    }
  }
  return list;
}

function add(
  list: OperationList,
  builder: ToolBuilder,
  at: { method: string; path: string; pathItem: Obj; operation: Obj },
): void {
  const { method, path, operation } = at;
  const id = operation.operationId;
  const name = typeof id === 'string' && id !== '' ? id : `${method.toUpperCase()} ${path}`;
  const omit = (reason: string): void => {
    list.omitted.push({ name, reason });
  };
  if (name !== id) return omit('it has no operationId');
  if (list.operations.has(name)) return omit('another operation has the same operationId');
  if (list.operations.size >= MAX_OPERATIONS) {
    return omit(`the document has more than ${MAX_OPERATIONS} operations`);
  }
  try {
    const built = builder.build(method, path, at.pathItem, operation);
    const tool: UpstreamTool = { name, inputSchema: built.inputSchema };
    describe(tool, operation);
    if (method === 'get' || method === 'head') tool.annotations = { readOnlyHint: true };
    list.tools.push(tool);
    list.operations.set(name, { name, ...built.operation });
  } catch (error) {
    if (!(error instanceof LeftOut)) throw error;
    omit(error.message);
  }
}
