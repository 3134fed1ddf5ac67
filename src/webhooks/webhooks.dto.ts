import { ApiProperty } from '@nestjs/swagger';
import { BoolField, IntField, StringField, StringListField } from '../kernel/validation/fields';

/** The longest target URL accepted. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** The longest grace a rotated-out secret keeps signing: a day. */
export const MAX_SECRET_GRACE_SECONDS = 86_400;

export class CreateWebhookInput {
  @StringField({
    description:
      'Where events are POSTed: https:// to a public address (WEBHOOK_ALLOW_PRIVATE=true allows http:// and private addresses).',
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    example: 'https://hooks.example.com/tis',
  })
  url: string;

  @StringListField({
    description: 'Event types to receive (GET /api/v1/webhooks/event-types), or ["*"] for all.',
    maxItems: 50,
    example: ['api_key.revoked', 'quota.threshold'],
  })
  events: string[];

  @StringField({
    description: 'What the endpoint is for.',
    optional: true,
    maxLength: 500,
    label: true,
  })
  description?: string;
}

export class UpdateWebhookInput {
  @StringField({
    description: 'A new target URL (the same rules as at creation).',
    optional: true,
    maxLength: WEBHOOK_URL_MAX_LENGTH,
  })
  url?: string;

  @StringListField({
    description: 'The event types it receives from now on, or ["*"].',
    optional: true,
    maxItems: 50,
  })
  events?: string[];

  @StringField({
    description: 'What the endpoint is for.',
    optional: true,
    maxLength: 500,
    label: true,
  })
  description?: string;

  @BoolField({
    description:
      'false: nothing is sent to it until enabled again; true also ends a disable by 410 or failures.',
    optional: true,
  })
  enabled?: boolean;
}

export class RotateWebhookSecretInput {
  @IntField({
    description:
      'Seconds the previous secret keeps signing beside the new one (0 to 86,400); secrets rotated out before keep their own grace, two at most. 0: the new secret alone signs from now on.',
    optional: true,
    minimum: 0,
    maximum: MAX_SECRET_GRACE_SECONDS,
    default: MAX_SECRET_GRACE_SECONDS,
  })
  grace_seconds?: number;
}

export class PreviousWebhookSecret {
  @ApiProperty({ description: 'When this rotated-out secret stops signing.' })
  expires_at: string;
}

/** An endpoint as the API shows it: never its secrets, its URL's query string hidden. */
export class WebhookEndpointView {
  @ApiProperty({ example: 'wh_0123456789abcdef' }) id: string;
  @ApiProperty({
    description:
      'Where events are POSTed; a query string is shown as `?…` (it is kept, and sent, as given).',
    example: 'https://hooks.example.com/tis?…',
  })
  url: string;
  @ApiProperty({ type: [String] }) events: string[];
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty() enabled: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['operator', 'gone', 'failing'],
    description:
      'operator: disabled by a PATCH; gone: its receiver answered 410; failing: 5 days of failed deliveries.',
  })
  disabled_reason: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The first failed attempt since the last success.',
  })
  failing_since: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'While a rotated-out secret still signs beside the current one: until when (the latest of previous_secrets).',
  })
  previous_secret_expires_at: string | null;
  @ApiProperty({
    type: [PreviousWebhookSecret],
    description:
      'The rotated-out secrets still signing beside the current one, each until the grace of its own rotation ends: at most two, the most recently rotated first.',
  })
  previous_secrets: PreviousWebhookSecret[];
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
}

export class CreatedWebhook extends WebhookEndpointView {
  @ApiProperty({ description: 'The signing secret (whsec_…): shown this once.' })
  secret: string;
}

export class RotatedWebhookSecret {
  @ApiProperty({ description: 'The new signing secret (whsec_…): shown this once.' })
  secret: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Until when the secret this rotation replaced keeps signing beside it.',
  })
  previous_secret_expires_at: string | null;
}

export class WebhookList {
  @ApiProperty({ type: [WebhookEndpointView] }) webhooks: WebhookEndpointView[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The `cursor` of the next page; null on the last.',
  })
  next_cursor: string | null;
}

export class WebhookDeliveryView {
  @ApiProperty({ example: 'dlv_…' }) id: string;
  @ApiProperty({ description: 'The webhook-id of every attempt.' }) event_id: string;
  @ApiProperty() type: string;
  @ApiProperty({ description: 'Attempts made so far.' }) attempt: number;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] }) status: string;
  @ApiProperty({ type: Number, nullable: true }) response_status: number | null;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ description: 'When the event was stored.' }) at: string;
  @ApiProperty({ type: String, nullable: true }) next_attempt_at: string | null;
}

export class WebhookDeliveryPage {
  @ApiProperty({ type: [WebhookDeliveryView] }) deliveries: WebhookDeliveryView[];
  @ApiProperty({
    type: String,
    nullable: true,
    deprecated: true,
    description: 'Deprecated: the same as `next_cursor`.',
  })
  next_before: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The `cursor` of the next page; null on the last.',
  })
  next_cursor: string | null;
}

export class WebhookEventTypeView {
  @ApiProperty() type: string;
  @ApiProperty() description: string;
  @ApiProperty({ description: "The JSON Schema of the event's `data`." }) data_schema: object;
}

export class WebhookEventTypes {
  @ApiProperty({ type: [WebhookEventTypeView] }) event_types: WebhookEventTypeView[];
}
