import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type {
  OperationObject,
  PathItemObject,
  ReferenceObject,
  RequestBodyObject,
  SchemaObject,
} from '@nestjs/swagger';
import helmet from 'helmet';
import { Settings, SETTINGS } from '../settings/settings';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

const DESCRIPTION = `Tools as authenticated JSON endpoints: \`POST /api/v1/services/<tool>\`.

Every call carries \`Authorization: Bearer <key>\`. Every error is \`{"detail": ...}\`: a sentence, or
for a body that does not match the schema (400) a list of \`{loc, msg, type}\`.
\`GET /api/v1/services\` lists the tools with the JSON Schemas of their input and output.`;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

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
  const schemas = document.components?.schemas ?? {};
  for (const operation of operationsOf(document)) {
    const body = operation.requestBody as RequestBodyObject | undefined;
    const ref = (body?.content?.['application/json']?.schema as ReferenceObject | undefined)?.$ref;
    const schema = ref && (schemas[ref.split('/').pop() as string] as SchemaObject | undefined);
    if (schema) schema.additionalProperties = false;
  }
}

/** The OpenAPI document of everything the application mounts, tools of test modules included. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const settings = app.get<Settings>(SETTINGS);
  const config = new DocumentBuilder()
    .setTitle('Tool invocation service')
    .setDescription(DESCRIPTION)
    .setVersion(settings.version)
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      description: 'An API key: `sk_` followed by 64 hex digits.',
    })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  closeRequestBodies(document);
  return document;
}

/**
 * `/openapi.json` and the interactive docs at `/docs`. Both are plain Express routes, outside the
 * guards: open to everyone, never rate limited or metered. The document is built on first request,
 * once every module is initialised.
 */
export function setupOpenApi(app: INestApplication): void {
  // Swagger UI loads only same-origin scripts, which helmet's policy allows; but its
  // `upgrade-insecure-requests` would send the page's assets to https:// on a plain-HTTP deployment.
  app.use(
    DOCS_PATH,
    helmet.contentSecurityPolicy({ directives: { upgradeInsecureRequests: null } }),
  );
  SwaggerModule.setup(DOCS_PATH, app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: OPENAPI_PATH,
    raw: ['json'],
    customSiteTitle: 'Tool invocation service: API',
  });
}
