import { ApiProperty } from '@nestjs/swagger';
import type { RunningSource } from './sources.service';

/** The query string of a URL is write-only (as a webhook's): a view shows `?…` in its place. */
function shownUrl(url: string): string {
  const parsed = new URL(url);
  return parsed.search ? `${parsed.origin}${parsed.pathname}?%E2%80%A6` : url;
}

export class SourceToolView {
  @ApiProperty({ example: 'everything_echo' }) name: string;
  @ApiProperty({ example: 'echo' }) upstream_name: string;
  @ApiProperty({ description: 'Credits a call, where a plan does not price it.' }) cost: number;
  @ApiProperty() description: string;
}

/** A source as the API shows it: never its secrets (auth, env values). */
export class SourceView {
  @ApiProperty({ example: 'everything' }) name: string;
  @ApiProperty({ enum: ['mcp', 'openapi'] }) kind: 'mcp' | 'openapi';
  @ApiProperty({
    type: String,
    required: false,
    description: "An HTTP source's URL, its query string shown as ?…",
  })
  url?: string;
  @ApiProperty({ type: String, required: false, description: "A stdio source's command." })
  command?: string;
  @ApiProperty() prefix: string;
  @ApiProperty({ enum: ['starting', 'ready', 'unavailable', 'error'] }) state: string;
  @ApiProperty({ type: String, nullable: true }) last_error: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) refreshed_at: string | null;
  @ApiProperty({ enum: ['config', 'api'] }) origin: 'config' | 'api';
  @ApiProperty({ type: [SourceToolView] }) tools: SourceToolView[];
}

export class SourceList {
  @ApiProperty({ type: [SourceView] }) sources: SourceView[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The `cursor` of the next page; null on the last.',
  })
  next_cursor: string | null;
}

export function sourceView(source: RunningSource): SourceView {
  const { definition } = source;
  const where = definition.url ?? definition.document;
  return {
    name: definition.name,
    kind: definition.kind,
    ...(where !== undefined && /^https?:/i.test(where) ? { url: shownUrl(where) } : {}),
    ...(definition.command !== undefined ? { command: definition.command } : {}),
    prefix: definition.prefix,
    state: source.state,
    last_error: source.lastError,
    refreshed_at: source.refreshedAt,
    origin: definition.origin,
    tools: source.tools.map(({ tool, upstreamName }) => ({
      name: tool.name,
      upstream_name: upstreamName,
      cost: tool.runtime.cost,
      description: tool.description,
    })),
  };
}
