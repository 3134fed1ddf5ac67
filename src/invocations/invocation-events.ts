import { Injectable } from '@nestjs/common';
import { ToolRegistry } from '../tools/index';
import { WebhooksService } from '../webhooks';
import type { InvocationRecord } from './invocation.store';

/**
 * `invocation.finished`: a long-running call (REST 202, an MCP task) ended, told to the webhooks
 * subscribed: its outcome, tool and caller; its result only for a tool that declares
 * `webhookResult: true` (a result may hold what the caller keeps private).
 */
@Injectable()
export class InvocationEvents {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly registry: ToolRegistry,
  ) {}

  finished(record: InvocationRecord): Promise<void> {
    const withResult = this.registry.get(record.tool)?.webhookResult === true;
    return this.webhooks.publish('invocation.finished', {
      invocation: {
        id: record.id,
        tool: record.tool,
        status: record.status,
        error: record.error,
        created_at: record.created_at,
        started_at: record.started_at,
        finished_at: record.finished_at,
      },
      caller: {
        kind: record.caller_id.startsWith('prn_') ? 'principal' : 'key',
        id: record.caller_id,
      },
      ...(withResult && record.status === 'succeeded' ? { result: record.result } : {}),
    });
  }
}
