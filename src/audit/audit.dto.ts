import { ApiProperty } from '@nestjs/swagger';
import { AUDIT_ACTIONS } from './audit.service';

export class AuditEntryView {
  @ApiProperty({
    type: 'integer',
    example: 42,
    description: 'Increasing; newest first in every page.',
  })
  id: number;
  @ApiProperty({ example: '2025-01-01T12:00:00.000Z' }) at: string;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'key_3f2a9c1d0b7e6a54',
    description: 'The key that acted; null for an OAuth principal, the CLI and the service itself.',
  })
  actor_key_id: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: null,
    description:
      'The OAuth principal that acted (docs/oauth.md); null for keys, the CLI and the service.',
  })
  actor_principal_id: string | null;
  @ApiProperty({
    enum: [...AUDIT_ACTIONS],
    example: 'api_key.update',
  })
  action: string;
  @ApiProperty({
    example: 'key_9b1c0d2e3f4a5b6c',
    description: 'The key id, the principal id, or the configuration key.',
  })
  target: string;
  @ApiProperty({ nullable: true, type: String, example: '5b0c1a52-62b8-4b8e-9d4f-1f8f3f3b8a11' })
  request_id: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { daily_limit: { from: 100, to: 500 } },
    description:
      'create: the settings granted; update and principal.update: {field: {from, to}}; rotate: {grace_seconds}; revoke: {}; principal.delete: {issuer, subject}; config.set: {value} (secrets masked); doctor.fix: what was fixed; webhook.created: {url, events}; webhook.updated: {field: {from, to}}; webhook.secret_rotated: {grace_seconds}; webhook.deleted: {}; webhook.disabled: {reason}; run.created: {budget, scopes, expires_at}; run.updated: the fields set; run.deleted: {}. CLI and start-up entries add source; entries an OAuth principal caused add the client_id of its token.',
  })
  details: Record<string, unknown>;
}

export class AuditPage {
  @ApiProperty({ type: [AuditEntryView], description: 'Newest first.' })
  entries: AuditEntryView[];
  @ApiProperty({
    type: String,
    nullable: true,
    example: '4120',
    description: 'While older entries remain: the `cursor` of the next page (null on the last).',
  })
  next_cursor: string | null;
}
