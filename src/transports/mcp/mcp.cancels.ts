import { Injectable } from '@nestjs/common';
import type { CallControl } from '../../invocations';

/**
 * The tool calls in flight over MCP on HTTP on this instance, by caller and JSON-RPC request id:
 * a 2025 client cancels one with `notifications/cancelled` in a POST of its own (stateless: the
 * call's POST is another request, on this instance or another; only this instance's are found,
 * as the contract has it). A caller can reach only its own calls.
 */
@Injectable()
export class McpCancels {
  private readonly inFlight = new Map<string, CallControl>();

  /** Makes the call cancellable until the returned function is called (its end). */
  register(callerId: string, requestId: unknown, control: CallControl): () => void {
    const key = keyOf(callerId, requestId);
    this.inFlight.set(key, control);
    return () => {
      if (this.inFlight.get(key) === control) this.inFlight.delete(key);
    };
  }

  /** Every `notifications/cancelled` of a POST's messages: the caller's calls they name stop. */
  cancelAll(callerId: string, messages: readonly unknown[]): void {
    for (const message of messages) {
      if (!isCancelled(message)) continue;
      this.inFlight.get(keyOf(callerId, message.params.requestId))?.stop('cancelled');
    }
  }
}

function keyOf(callerId: string, requestId: unknown): string {
  return `${callerId} ${JSON.stringify(requestId)}`;
}

function isCancelled(message: unknown): message is { params: { requestId: string | number } } {
  if (typeof message !== 'object' || message === null) return false;
  const { method, params, id } = message as Record<string, unknown>;
  if (method !== 'notifications/cancelled' || id !== undefined) return false;
  if (typeof params !== 'object' || params === null) return false;
  const requestId = (params as Record<string, unknown>).requestId;
  return typeof requestId === 'string' || typeof requestId === 'number';
}
