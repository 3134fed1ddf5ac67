import { ApiProperty } from '@nestjs/swagger';

const JSON_SCHEMA = { type: 'object', additionalProperties: true } as const;

/** One tool as discovery describes it: enough for a client to call it without other documentation. */
export class ToolView {
  @ApiProperty({ example: 'greet', pattern: '^[a-z][a-z0-9_]*$' })
  name: string;

  @ApiProperty({ example: 'Greet a user by name.' })
  description: string;

  @ApiProperty({ enum: ['POST'] })
  method: 'POST';

  @ApiProperty({ example: '/api/v1/services/greet' })
  path: string;

  @ApiProperty({
    example: 'services:execute:greet',
    description:
      'The per-tool scope that allows calling it (`services:execute` allows every tool).',
  })
  scope: string;

  @ApiProperty({
    type: 'integer',
    example: 1,
    description:
      "Credits a call costs the caller (its plan's price for the tool, else the tool's).",
  })
  cost: number;

  @ApiProperty({
    ...JSON_SCHEMA,
    description: 'JSON Schema of the request body, from the definitions that validate it.',
  })
  input_schema: Record<string, unknown>;

  @ApiProperty({ ...JSON_SCHEMA, description: 'JSON Schema of the 200 response body.' })
  output_schema: Record<string, unknown>;
}

export class ToolList {
  @ApiProperty({ type: [ToolView] })
  tools: ToolView[];
}
