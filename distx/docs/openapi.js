"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.DOCS_PATH = exports.OPENAPI_PATH = void 0;
exports.buildOpenApiDocument = buildOpenApiDocument;
exports.setupOpenApi = setupOpenApi;
const swagger_1 = require("@nestjs/swagger");
const helmet_1 = __importDefault(require("helmet"));
const settings_1 = require("../settings/settings");
exports.OPENAPI_PATH = '/openapi.json';
exports.DOCS_PATH = '/docs';
const DESCRIPTION = `Tools as authenticated JSON endpoints: \`POST /api/v1/services/<tool>\`.

Every call carries \`Authorization: Bearer <key>\`. Every error is \`{"detail": ...}\`: a sentence, or
for a body that does not match the schema (400) a list of \`{loc, msg, type}\`.
\`GET /api/v1/services\` lists the tools with the JSON Schemas of their input and output.`;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
function operationsOf(document) {
    return Object.values(document.paths).flatMap((item) => METHODS.map((method) => item[method]).filter((op) => !!op));
}
function closeRequestBodies(document) {
    const schemas = document.components?.schemas ?? {};
    for (const operation of operationsOf(document)) {
        const body = operation.requestBody;
        const ref = body?.content?.['application/json']?.schema?.$ref;
        const schema = ref && schemas[ref.split('/').pop()];
        if (schema)
            schema.additionalProperties = false;
    }
}
function buildOpenApiDocument(app) {
    const settings = app.get(settings_1.SETTINGS);
    const config = new swagger_1.DocumentBuilder()
        .setTitle('Tool invocation service')
        .setDescription(DESCRIPTION)
        .setVersion(settings.version)
        .addBearerAuth({
        type: 'http',
        scheme: 'bearer',
        description: 'An API key: `sk_` followed by 64 hex digits.',
    })
        .build();
    const document = swagger_1.SwaggerModule.createDocument(app, config);
    closeRequestBodies(document);
    return document;
}
function setupOpenApi(app) {
    app.use(exports.DOCS_PATH, helmet_1.default.contentSecurityPolicy({ directives: { upgradeInsecureRequests: null } }));
    swagger_1.SwaggerModule.setup(exports.DOCS_PATH, app, () => buildOpenApiDocument(app), {
        jsonDocumentUrl: exports.OPENAPI_PATH,
        raw: ['json'],
        customSiteTitle: 'Tool invocation service: API',
    });
}
//# sourceMappingURL=openapi.js.map