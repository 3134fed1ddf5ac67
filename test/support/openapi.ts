/** What the tests read of the served OpenAPI document's request bodies. */
interface RequestBodies {
  components: {
    requestBodies?: Record<
      string,
      { required?: boolean; content: Record<string, { schema: unknown }> }
    >;
  };
}

/**
 * The request body an operation points to (`#/components/requestBodies/<Input>`, see
 * src/kernel/openapi/openapi.ts): whether it is required, and its JSON schema.
 */
export function requestBodyOf<Schema = Record<string, unknown>>(
  doc: RequestBodies,
  operation: { requestBody?: unknown },
): { name: string; required?: boolean; schema: Schema } {
  const ref = (operation.requestBody as { $ref?: string } | undefined)?.$ref ?? '';
  const name = /^#\/components\/requestBodies\/(.+)$/.exec(ref)?.[1];
  const body = name ? doc.components.requestBodies?.[name] : undefined;
  if (!name || !body) throw new Error(`No request body component at '${ref}'`);
  return {
    name,
    required: body.required,
    schema: body.content['application/json'].schema as Schema,
  };
}
