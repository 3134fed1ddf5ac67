import { randomBytes } from 'node:crypto';
import type { AuditActor } from '../audit';
import { printable } from '../kernel/common/text';

/** A JSON Schema, as the event-types route shows it. */
type Schema = Record<string, unknown>;

const string = { type: 'string' };
const nullableString = { type: ['string', 'null'] };
const time = { type: 'string', format: 'date-time' };
const object = (
  properties: Record<string, Schema>,
  required = Object.keys(properties),
): Schema => ({
  type: 'object',
  properties,
  required,
});

/** The key as `GET /api/v1/auth/keys/<id>` shows it: never its secret. */
const KEY = object(
  {
    id: string,
    name: string,
    prefix: string,
    scopes: { type: 'array', items: string },
    plan: string,
    enabled: { type: 'boolean' },
    status: string,
    created_at: time,
    expires_at: nullableString,
    revoked_at: nullableString,
  },
  ['id', 'name', 'prefix', 'scopes', 'plan', 'enabled', 'status'],
);

/** Who acted: a key, an OAuth principal, or neither (the CLI, the service). */
const ACTOR = object(
  { key_id: nullableString, principal_id: nullableString, source: nullableString },
  ['key_id', 'principal_id'],
);

const keyEvent = (description: string, extra: Record<string, Schema> = {}) => ({
  description,
  data: object({ key: KEY, actor: ACTOR, ...extra }, ['key', 'actor', ...Object.keys(extra)]),
});

/** A source as `GET /api/v1/sources/<name>` shows it: never its credentials or URL query. */
const SOURCE = object(
  {
    name: string,
    kind: { type: 'string', enum: ['mcp', 'openapi'] },
    url: string,
    command: string,
    prefix: string,
    state: { type: 'string', enum: ['starting', 'ready', 'unavailable', 'error'] },
    last_error: nullableString,
    refreshed_at: nullableString,
    origin: { type: 'string', enum: ['config', 'api'] },
    tools: { type: 'array', items: { type: 'object' } },
  },
  ['name', 'kind', 'prefix', 'state', 'last_error', 'refreshed_at', 'origin', 'tools'],
);

const sourceEvent = (description: string, acted = false, extra: Record<string, Schema> = {}) => ({
  description,
  data: object({ source: SOURCE, ...(acted ? { actor: ACTOR } : {}), ...extra }, [
    'source',
    ...(acted ? ['actor'] : []),
    ...Object.keys(extra),
  ]),
});

/**
 * Every event the service sends, with the JSON Schema of its `data` (`GET
 * /api/v1/webhooks/event-types`). Payloads never hold a secret, a key or a token.
 */
export const WEBHOOK_EVENT_TYPES = {
  'webhook.test': {
    description: 'Sent by POST /api/v1/webhooks/<id>/test: checks a receiver and its secret.',
    data: object({ endpoint_id: string, message: string }),
  },
  'api_key.created': keyEvent('A key was created (by the API, the CLI or at first start).'),
  'api_key.updated': keyEvent('A key was changed: `changes` holds each field as {from, to}.', {
    changes: { type: 'object' },
  }),
  'api_key.rotated': keyEvent(
    'A key got a new secret; the old one works until `grace_until` (null: it stopped at once).',
    { grace_until: nullableString },
  ),
  'api_key.disabled': keyEvent('A key was disabled (its `enabled` set to false).'),
  'api_key.enabled': keyEvent('A disabled key was enabled again.'),
  'api_key.revoked': keyEvent('A key was revoked: it never works again.'),
  'principal.updated': {
    description:
      "An OAuth principal's settings were changed (plan, limits, enabled): `changes` holds each as {from, to}.",
    data: object({
      principal: object(
        {
          id: string,
          issuer: string,
          subject: string,
          client_id: nullableString,
          plan: nullableString,
          enabled: { type: 'boolean' },
        },
        ['id', 'issuer', 'subject', 'enabled'],
      ),
      actor: ACTOR,
      changes: { type: 'object' },
    }),
  },
  'invocation.finished': {
    description:
      'A long-running call (REST 202, an MCP task) ended: its outcome, tool and caller; its result only for a tool declaring webhookResult: true.',
    data: object(
      {
        invocation: object(
          {
            id: string,
            tool: string,
            status: { type: 'string', enum: ['succeeded', 'failed', 'cancelled', 'timed_out'] },
            error: { type: ['object', 'null'] },
            created_at: time,
            started_at: nullableString,
            finished_at: nullableString,
          },
          ['id', 'tool', 'status', 'error', 'created_at'],
        ),
        caller: object({ kind: { type: 'string', enum: ['key', 'principal'] }, id: string }),
        result: {},
      },
      ['invocation', 'caller'],
    ),
  },
  'quota.threshold': {
    description:
      "A key's or principal's credits of the UTC day or month crossed 80 % or 100 % of its limit: once per subject, period and threshold.",
    data: object({
      subject: object({ kind: { type: 'string', enum: ['key', 'principal'] }, id: string }),
      period: { type: 'string', enum: ['day', 'month'] },
      period_start: { type: 'string', description: 'YYYY-MM-DD for a day, YYYY-MM for a month' },
      threshold: { type: 'integer', enum: [80, 100] },
      limit: { type: 'integer' },
      used: { type: 'integer' },
      resets_at: time,
    }),
  },
  'run.budget_threshold': {
    description:
      "A run's spending crossed 80 % or 100 % of its budget: once per run and threshold.",
    data: object({
      run: object({ id: string, parent: { type: 'object' } }),
      threshold: { type: 'integer', enum: [80, 100] },
      budget: { type: 'integer' },
      spent: { type: 'integer' },
    }),
  },
  'run.ended': {
    description:
      'A run ended: deleted, expired (seen at its next call or list), or its parent revoked or disabled.',
    data: object({
      run: { type: 'object', description: 'The run as GET /api/v1/runs/<id> shows it.' },
    }),
  },
  'source.created': sourceEvent('A source was created through POST /api/v1/sources.', true),
  'source.updated': sourceEvent(
    'A source made through the API was changed: `changes` names the fields changed.',
    true,
    { changes: { type: 'array', items: string } },
  ),
  'source.deleted': sourceEvent(
    'A source made through the API was deleted: its view before.',
    true,
  ),
  'source.unavailable': sourceEvent(
    'A source can no longer be reached or listed (its state became unavailable): `last_error` says why.',
  ),
  'source.available': sourceEvent('A source was listed and its state became ready.'),
} satisfies Record<string, { description: string; data: Schema }>;

export type WebhookEventType = keyof typeof WEBHOOK_EVENT_TYPES;

export const EVENT_TYPE_NAMES = Object.keys(WEBHOOK_EVENT_TYPES) as WebhookEventType[];

/** What an endpoint receives: the body of every attempt. */
export interface WebhookEvent {
  /** `msg_` + 24 hex: the `webhook-id` header of every attempt, a retry's too. */
  id: string;
  type: WebhookEventType;
  created_at: string;
  data: Record<string, unknown>;
}

export function newEventId(): string {
  return `msg_${randomBytes(12).toString('hex')}`;
}

/** Whether an endpoint subscribed to `events` takes an event of `type`. */
export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/** Why an endpoint's `events` cannot be taken (none, or a name no event has), if anything. */
export function eventsRefusal(events: readonly string[]): string | undefined {
  if (events.length === 0) return 'events must name at least one event type, or "*".';
  const unknown = events.find((name) => name !== '*' && !(name in WEBHOOK_EVENT_TYPES));
  if (unknown === undefined) return undefined;
  return `Unknown event type ${JSON.stringify(printable(unknown.slice(0, 100)))}: one of ${EVENT_TYPE_NAMES.join(', ')}, or "*".`;
}

/** Who acted, in an event's `actor`: a key, a principal, or neither (`source`: CLI, service). */
export function eventActor(actor: AuditActor): Record<string, string | null> {
  return {
    key_id: actor.actorKeyId,
    principal_id: actor.actorPrincipalId ?? null,
    source: actor.source ?? null,
  };
}
