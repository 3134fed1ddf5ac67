import type { Schemas } from '../api/client';
import { StatusBadge } from './ui';

type Endpoint = Schemas['WebhookEndpointView'];

const DISABLED: Record<string, string> = {
  operator: 'by an operator',
  gone: 'its receiver answered 410 Gone',
  failing: 'after 5 days of failed deliveries',
};

/** Where an endpoint stands: enabled, failing, or disabled and why. */
export function EndpointStatus({ endpoint }: { endpoint: Endpoint }) {
  if (!endpoint.enabled) {
    return (
      <span className="stack-inline">
        <StatusBadge status="disabled" />
        <span className="cell-sub">{DISABLED[endpoint.disabled_reason ?? 'operator']}</span>
      </span>
    );
  }
  if (endpoint.failing_since) return <StatusBadge status="failing" />;
  return <StatusBadge status="active" />;
}

/** The event types an endpoint receives (`*`: every one, those added later too). */
export function EventList({ events }: { events: readonly string[] }) {
  if (events.includes('*')) return <span className="chip">every event (*)</span>;
  return (
    <span className="chips">
      {events.map((type) => (
        <span className="chip" key={type}>
          {type}
        </span>
      ))}
    </span>
  );
}

/** The graces a rotated-out secret may keep signing for (the API's 0 to 86,400 s). */
export const SECRET_GRACES = [
  { seconds: 0, label: 'None: the old secret stops at once' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
];
