/**
 * greet's published JSON Schemas, as discovery, OpenAPI and MCP's tools/list must show them (and as
 * its validation enforces them): name 1-200 characters, shout a boolean, times 1-100.
 */
export const GREET_INPUT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    shout: { type: 'boolean', default: false },
    times: { type: 'integer', minimum: 1, maximum: 100, default: 1 },
  },
};

export const GREET_OUTPUT_SCHEMA = {
  type: 'object',
  required: ['message', 'times'],
  properties: { message: { type: 'string' }, times: { type: 'integer' } },
};
