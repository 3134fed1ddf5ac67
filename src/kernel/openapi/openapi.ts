import type { INestApplication } from '@nestjs/common';
import { ApiExtension, DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type {
  HeaderObject,
  OperationObject,
  PathItemObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
  TagObject,
} from '@nestjs/swagger';
import { Settings, SETTINGS } from '../settings/settings';
import { ErrorResponse, integerHeader, RATE_LIMIT_HEADERS } from './api-errors';
import { LiveOperations, liveOperationsOf, servedDocument } from './live-operations';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

const DESCRIPTION = `Tools as authenticated JSON endpoints: \`POST /api/v1/services/<tool>\`.

Every call carries \`Authorization: Bearer <key>\`. Every error is \`{"detail": ...}\`: a sentence, or
for a body that does not match the schema (400) a list of \`{loc, msg, type}\`.
\`GET /api/v1/services\` lists the tools with the JSON Schemas of their input and output.`;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * The groups of operations in the order Swagger UI shows them: the tools first, what a caller
 * needs next, then the operator's. A tag not named here (a test module's) follows, in the order
 * of its first operation.
 */
const TAGS: readonly TagObject[] = [
  { name: 'tools', description: 'The tools (`POST /api/v1/services/<tool>`) and their discovery.' },
  { name: 'invocations', description: 'Long-running calls: their views, and cancelling them.' },
  { name: 'usage', description: 'What the calling key has spent.' },
  { name: 'runs', description: "A budget and a token for one agent's task: its calls, its spend." },
  { name: 'auth', description: 'Keys and OAuth principals: scopes, plans, limits, rotation.' },
  { name: 'audit', description: 'Who changed which key, principal or setting, and when.' },
  { name: 'webhooks', description: 'Signed events to your URLs: endpoints, deliveries, retries.' },
  {
    name: 'sources',
    description:
      'Upstream MCP servers whose tools are served as this service’s own: their state and tools.',
  },
  { name: 'ledger', description: 'Every counted call and refund: pages, NDJSON and CSV exports.' },
  {
    name: 'admin',
    description: 'What the operator console reads: usage, errors, keys and audit across callers.',
  },
  { name: 'oauth', description: 'OAuth protected resource metadata (RFC 9728), with OAuth on.' },
  { name: 'health', description: 'Health, readiness and liveness, for load balancers.' },
  { name: 'operations', description: 'Prometheus metrics.' },
];

/** Marks an operation that exists only with OAuth configured (`OAUTH_ISSUERS`). */
const OAUTH_ONLY = 'x-oauth-only';

/** An operation the document lists only while OAuth is configured: it answers 404 otherwise. */
export const ApiOAuthOnly = (): MethodDecorator & ClassDecorator => ApiExtension(OAUTH_ONLY, true);

function operationsOf(document: OpenAPIObject): OperationObject[] {
  return Object.values(document.paths).flatMap((item: PathItemObject) =>
    METHODS.map((method) => item[method]).filter((op): op is OperationObject => !!op),
  );
}

/**
 * Request bodies are closed: the validation pipe rejects unknown fields (`extra_forbidden`), so the
 * document says so too, as discovery's schemas do.
 */
function closeRequestBodies(document: OpenAPIObject): void {
  for (const operation of operationsOf(document)) {
    const schema = bodySchemaOf(document, operation);
    if (schema) schema.additionalProperties = false;
  }
}

/** The schema of an operation's JSON body, inline or from the components it points to. */
function bodySchemaOf(
  document: OpenAPIObject,
  operation: OperationObject,
): SchemaObject | undefined {
  const body = operation.requestBody as RequestBodyObject | undefined;
  const schema = body?.content?.['application/json']?.schema;
  const ref = (schema as ReferenceObject | undefined)?.$ref;
  // Inline: a source's tool's, the upstream's own schema.
  if (!ref) return schema as SchemaObject | undefined;
  return document.components?.schemas?.[ref.split('/').pop() as string] as SchemaObject;
}

/**
 * Each request body is a component of its own (`#/components/requestBodies/<Input>`) holding its
 * schema, rather than a reference to `#/components/schemas/<Input>`. Generators type a schema by
 * where it sits: openapi-typescript (by default) makes a property with a `default` required in a
 * schema, as a response or the handler sees it, and optional in a request body, as a client may
 * send it. So a typed client may leave out `shout` or `times`, and the defaults stay documented.
 */
function requestBodiesAsComponents(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  const schemas = (components.schemas ??= {});
  const moved = new Set<string>();
  for (const operation of operationsOf(document)) {
    const body = operation.requestBody as RequestBodyObject | undefined;
    const ref = (body?.content?.['application/json']?.schema as ReferenceObject | undefined)?.$ref;
    const name = ref?.split('/').pop();
    if (!body || !name || !schemas[name]) continue;
    (components.requestBodies ??= {})[name] = {
      required: body.required,
      content: { 'application/json': { schema: schemas[name] } },
    };
    operation.requestBody = { $ref: `#/components/requestBodies/${name}` };
    moved.add(name);
  }
  const text = JSON.stringify(document);
  for (const name of moved) {
    if (!text.includes(`"#/components/schemas/${name}"`)) delete schemas[name];
  }
}

const REQUEST_ID: HeaderObject = {
  description: 'The request id: a well-formed incoming `X-Request-Id` is kept, else a new one.',
  schema: { type: 'string' },
};

const QUOTA_HEADERS: Record<string, HeaderObject> = {
  'X-Quota-Limit': integerHeader('Credits a UTC day (absent when the key has no daily limit).'),
  'X-Quota-Used': integerHeader('Credits counted today, this call included.'),
  'X-Quota-Remaining': integerHeader(
    'Credits left today (absent when the key has no daily limit).',
  ),
  'X-Quota-Reset': integerHeader('Seconds until the next UTC midnight.'),
  'X-Quota-Cost': integerHeader('What this call cost, in credits (on a counted answer).'),
  'X-Quota-Monthly-Limit': integerHeader('Credits a UTC month (only with a monthly limit).'),
  'X-Quota-Monthly-Used': integerHeader('Credits counted this month (only with a monthly limit).'),
  'X-Quota-Monthly-Remaining': integerHeader(
    'Credits left this month (only with a monthly limit).',
  ),
  'X-Run-Budget-Remaining': integerHeader("Credits left of the run's budget (a run's call only)."),
};

const { 'Retry-After': _retry, ...RATE_LIMIT_STATE } = RATE_LIMIT_HEADERS;

/** Statuses answered after the rate limit counted the call (it carries X-RateLimit-*). */
const AFTER_RATE_LIMIT = /^(2\d\d|400|402|404|409|422|500)$/;
/** Statuses answered after the daily quota counted a tool call (it carries X-Quota-*). */
const AFTER_QUOTA = /^(2\d\d|400|402|404|409|500)$/;

/**
 * What every operation states alike, stated once here rather than beside each route: open routes
 * ask for no key (`security: []`) and may still be refused as malformed (400); a body whose schema
 * requires nothing is optional; and the headers every answer carries: `X-Request-Id` always,
 * `X-RateLimit-*` once the key's rate limit has counted the call, `X-Quota-*` once a tool call is
 * counted against the daily quota.
 */
function stateCommonFacts(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation: (OperationObject & { [OAUTH_ONLY]?: true }) | undefined = item[method];
      if (!operation) continue;
      const keyed = (operation.security ?? []).length > 0;
      if (!keyed) operation.security = [];
      if (!Object.keys(operation.responses).some((status) => status.startsWith('4'))) {
        operation.responses['400'] = {
          description:
            'A malformed request: a path whose percent-encoding does not decode, or no `Host` header.',
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/' + ErrorResponse.name },
              example: { detail: 'Malformed percent-encoding in the request path' },
            },
          },
        };
      }
      const body = operation.requestBody as RequestBodyObject | undefined;
      if (body && !bodySchemaOf(document, operation)?.required?.length) body.required = false;
      const tool = method === 'post' && path.startsWith('/api/v1/services/');
      for (const [status, response] of Object.entries(operation.responses)) {
        const answer = response as ResponseObject;
        answer.headers = {
          ...(keyed && AFTER_RATE_LIMIT.test(status) ? RATE_LIMIT_STATE : {}),
          ...(tool && AFTER_QUOTA.test(status) ? QUOTA_HEADERS : {}),
          ...answer.headers,
          'X-Request-Id': REQUEST_ID,
        };
      }
    }
  }
}

/** The operations marked ApiOAuthOnly() kept with OAuth on (unmarked), dropped without it. */
function applyOAuth(document: OpenAPIObject, oauth: boolean): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation: (OperationObject & { [OAUTH_ONLY]?: true }) | undefined = item[method];
      if (!operation?.[OAUTH_ONLY]) continue;
      if (oauth) delete operation[OAUTH_ONLY];
      else delete item[method];
    }
    if (!METHODS.some((method) => item[method])) delete document.paths[path];
  }
}

/**
 * The schemas no operation reaches, directly or through another schema, left out: those of the
 * operations applyOAuth dropped (ProtectedResourceMetadata without OAuth), so that the document
 * has no unused component in any configuration.
 */
function dropUnreachedSchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas;
  if (!schemas) return;
  const reached = new Set<string>();
  const pending = [
    JSON.stringify({ ...document, components: { ...document.components, schemas: {} } }),
  ];
  for (let text = pending.pop(); text !== undefined; text = pending.pop()) {
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (reached.has(name) || !schemas[name]) continue;
      reached.add(name);
      pending.push(JSON.stringify(schemas[name]));
    }
  }
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
}

/** The document's tags: those its operations use, in the order of TAGS. */
function orderTags(document: OpenAPIObject): void {
  const used = [...new Set(operationsOf(document).flatMap((operation) => operation.tags ?? []))];
  const known = TAGS.filter(({ name }) => used.includes(name));
  const others = used.filter((name) => !TAGS.some((tag) => tag.name === name));
  document.tags = [...known, ...others.map((name) => ({ name }))];
}

/** The document with the live operations of the moment, stated as every other operation is. */
function withLiveOperations(
  document: OpenAPIObject,
  live: LiveOperations | undefined,
): OpenAPIObject {
  const paths = live?.paths() ?? {};
  if (Object.keys(paths).length === 0) return document;
  stateCommonFacts({ ...document, paths });
  return { ...document, paths: { ...document.paths, ...paths } };
}

/** The OpenAPI document of everything the application mounts, tools of test modules included. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  return withLiveOperations(buildStaticDocument(app), liveOperationsOf(app));
}

/** The document of the routes the application mounts (built once, as Nest knows them). */
function buildStaticDocument(app: INestApplication): OpenAPIObject {
  const settings = app.get<Settings>(SETTINGS);
  const config = new DocumentBuilder()
    .setTitle('Tool invocation service')
    .setDescription(DESCRIPTION)
    .setVersion(settings.version)
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addServer('/', 'This service')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'sk_ followed by 64 hex digits',
      description: 'An API key: `sk_` followed by 64 hex digits (opaque, not a JWT).',
    })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  applyOAuth(document, settings.oauth !== undefined);
  orderTags(document);
  closeRequestBodies(document);
  stateCommonFacts(document);
  requestBodiesAsComponents(document);
  dropUnreachedSchemas(document);
  return document;
}

/**
 * `/openapi.json` and the interactive docs at `/docs`. Both are plain routes of the adapter, outside the
 * guards: open to everyone, never rate limited or metered. The document is built on first request,
 * once every module is initialised; the live operations are added to it as they are then.
 */
export function setupOpenApi(app: INestApplication): void {
  // Its pages' security headers are the adapter's (src/kernel/http/security.ts).
  const served = servedDocument(app, withLiveOperations);
  SwaggerModule.setup(DOCS_PATH, app, () => buildStaticDocument(app), {
    // The live operations (sources' tools) as they are when the document is asked for.
    patchDocumentOnRequest: (_req, _res, document) => served(document),
    jsonDocumentUrl: OPENAPI_PATH,
    raw: ['json'],
    customSiteTitle: 'Tool invocation service: API',
    // The key typed into "Authorize" survives a reload of the page.
    swaggerOptions: { persistAuthorization: true },
  });
}
