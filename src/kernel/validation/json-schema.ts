import type { Type } from '@nestjs/common';
import type { SchemaObject } from '@nestjs/swagger';
import { dirname, join } from 'node:path';

export type JsonSchema = Record<string, unknown>;

interface SchemaFactory {
  exploreModelSchema(type: Type<unknown>, schemas: Record<string, SchemaObject>): string;
}

/**
 * @nestjs/swagger's own schema factory, the one that writes the OpenAPI document's components, so
 * discovery, MCP and /openapi.json cannot disagree. It is not in the package's export map, hence
 * the resolved path; json-schema.spec.ts guards it across upgrades.
 */
function swaggerSchemaFactory(): SchemaFactory {
  const dist = dirname(require.resolve('@nestjs/swagger'));
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { SchemaObjectFactory } = require(join(dist, 'services/schema-object-factory')) as {
    SchemaObjectFactory: new (accessor: unknown, mapper: unknown) => SchemaFactory;
  };
  const { ModelPropertiesAccessor } = require(join(dist, 'services/model-properties-accessor')) as {
    ModelPropertiesAccessor: new () => unknown;
  };
  const { SwaggerTypesMapper } = require(join(dist, 'services/swagger-types-mapper')) as {
    SwaggerTypesMapper: new () => unknown;
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return new SchemaObjectFactory(new ModelPropertiesAccessor(), new SwaggerTypesMapper());
}

const factory = swaggerSchemaFactory();

/** OpenAPI 3.0 spellings to JSON Schema (2020-12) ones: `nullable` becomes a `null` type. */
function toJsonSchema(schema: SchemaObject, defs: Record<string, SchemaObject>): JsonSchema {
  const { nullable, ...rest } = schema as SchemaObject & { nullable?: boolean };
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    if (key === '$ref' && typeof value === 'string') {
      Object.assign(out, toJsonSchema(defs[value.split('/').pop() as string], defs));
    } else if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, SchemaObject>).map(([name, prop]) => [
          name,
          toJsonSchema(prop, defs),
        ]),
      );
    } else if (key === 'items') {
      out.items = toJsonSchema(value as SchemaObject, defs);
    } else {
      out[key] = value;
    }
  }
  if (nullable && typeof out.type === 'string') out.type = [out.type, 'null'];
  // A nullable enum lists null too, or no JSON Schema validator would take the null it allows.
  if (nullable && Array.isArray(out.enum) && !out.enum.includes(null))
    out.enum = [...(out.enum as unknown[]), null];
  return out;
}

/**
 * The JSON Schema of a DTO class, read from its field decorators (fields.ts) through
 * @nestjs/swagger's own schema factory: one definition for OpenAPI, discovery, MCP and the compiled
 * validator (compiled.validator.ts). Objects are closed (`additionalProperties: false`) since
 * unknown fields are rejected.
 */
export function jsonSchemaOf(dto: Type<unknown>, closed = true): JsonSchema {
  const defs: Record<string, SchemaObject> = {};
  const name = factory.exploreModelSchema(dto, defs);
  const schema = toJsonSchema(defs[name], defs);
  return { ...schema, type: 'object', ...(closed ? { additionalProperties: false } : {}) };
}
