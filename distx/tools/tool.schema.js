"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.jsonSchemaOf = jsonSchemaOf;
const node_path_1 = require("node:path");
function swaggerSchemaFactory() {
    const dist = (0, node_path_1.dirname)(require.resolve('@nestjs/swagger'));
    const { SchemaObjectFactory } = require((0, node_path_1.join)(dist, 'services/schema-object-factory'));
    const { ModelPropertiesAccessor } = require((0, node_path_1.join)(dist, 'services/model-properties-accessor'));
    const { SwaggerTypesMapper } = require((0, node_path_1.join)(dist, 'services/swagger-types-mapper'));
    return new SchemaObjectFactory(new ModelPropertiesAccessor(), new SwaggerTypesMapper());
}
const factory = swaggerSchemaFactory();
function toJsonSchema(schema, defs) {
    const { nullable, ...rest } = schema;
    const out = {};
    for (const [key, value] of Object.entries(rest)) {
        if (value === undefined)
            continue;
        if (key === '$ref' && typeof value === 'string') {
            Object.assign(out, toJsonSchema(defs[value.split('/').pop()], defs));
        }
        else if (key === 'properties') {
            out.properties = Object.fromEntries(Object.entries(value).map(([name, prop]) => [
                name,
                toJsonSchema(prop, defs),
            ]));
        }
        else if (key === 'items') {
            out.items = toJsonSchema(value, defs);
        }
        else {
            out[key] = value;
        }
    }
    if (nullable && typeof out.type === 'string')
        out.type = [out.type, 'null'];
    return out;
}
function jsonSchemaOf(dto, closed = true) {
    const defs = {};
    const name = factory.exploreModelSchema(dto, defs);
    const schema = toJsonSchema(defs[name], defs);
    return { ...schema, type: 'object', ...(closed ? { additionalProperties: false } : {}) };
}
//# sourceMappingURL=tool.schema.js.map