import { ApiProperty } from '@nestjs/swagger';
import { INVOCATION_STATUSES, type InvocationStatus } from './invocation.store';

/**
 * A long-running call as its caller sees it (docs/long-running-calls.md): the answer of a tool
 * route's 202 and of /api/v1/invocations. Here, below the tools, so that a tool route documents it.
 */
export class InvocationProgressView {
  @ApiProperty({ example: 3 }) done: number;
  @ApiProperty({ type: 'number', nullable: true, example: 10 }) total: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'store' }) message: string | null;
}

export class InvocationErrorView {
  @ApiProperty({ example: 504 }) status: number;
  @ApiProperty({
    description: 'The `{detail}` the call would have been answered with.',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }],
    example: "Tool 'doctor' did not finish within 30000 ms",
  })
  detail: unknown;
}

/** A long-running call as its caller sees it (docs/long-running-calls.md). */
export class InvocationView {
  @ApiProperty({ example: 'inv_0f3c9a2b4d5e6f708192a3b4c5d6e7f8' }) id: string;
  @ApiProperty({ example: 'doctor' }) tool: string;
  @ApiProperty({ enum: INVOCATION_STATUSES, example: 'running' }) status: InvocationStatus;
  @ApiProperty({ type: InvocationProgressView, nullable: true })
  progress: InvocationProgressView | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "The tool's answer (its 200 body), once `succeeded`.",
  })
  result: unknown;
  @ApiProperty({ type: InvocationErrorView, nullable: true }) error: InvocationErrorView | null;
  @ApiProperty({ example: '2026-11-26T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ type: 'string', nullable: true }) started_at: string | null;
  @ApiProperty({ type: 'string', nullable: true }) finished_at: string | null;
}
