import type { CallToolResult } from '@modelcontextprotocol/server';
import { retryAfterText } from '../../limits';
import { isPlainObject } from '../../kernel/common/plain-object';

/** The REST answer's detail as text: a sentence as it is, a 400 list as its JSON. */
function textOf(detail: unknown): string {
  return typeof detail === 'string' ? detail : JSON.stringify(detail);
}

/** A tool's answer as MCP's result: its JSON as text, and as structured content when an object. */
export function success(body: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    ...(isPlainObject(body) ? { structuredContent: body } : {}),
  };
}

/** An MCP source's tool's answer (src/sources/): the upstream's own result, as it came. */
export function sourceResult(body: unknown): CallToolResult {
  return isPlainObject(body) && Array.isArray(body.content)
    ? (body as CallToolResult)
    : success(body);
}

/** A tool call the service refused or that failed, as MCP's `isError` result with REST's detail. */
export function failure(detail: unknown, retryAfter?: string | number): CallToolResult {
  let text = textOf(detail);
  if (retryAfter !== undefined && !/retry/i.test(text)) {
    text += ` ${retryAfterText(Number(retryAfter))}`;
  }
  return { content: [{ type: 'text', text }], isError: true };
}
