import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { SETTINGS, type Settings } from '../../../kernel/settings/settings';
import { plural } from '../../../kernel/common/text';
import type { SourcesService } from '../../../sources';
import { WebhooksService } from '../../../webhooks';
import { CheckOutcome, DoctorCheck, HealthCheck, pass, warn } from '../doctor-check';
import { runningSources } from './sources.check';

/**
 * Whether the secrets the store keeps are sealed (docs/operations.md, SECRETS_KEY): webhook
 * signing secrets and the credentials of sources made through the API. Without SECRETS_KEY they
 * are stored as they are; a warning once there is one, saying how many and what to set.
 */
@DoctorCheck({ order: 87.7 })
@Injectable()
export class SecretsCheck implements HealthCheck, OnModuleInit {
  readonly name = 'secrets';
  private sources?: SourcesService;

  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly webhooks: WebhooksService,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit(): void {
    this.sources = runningSources(this.modules);
  }

  async check(): Promise<CheckOutcome> {
    if (this.settings.sources.secretKey) {
      return pass('Webhook secrets and source credentials are sealed at rest (SECRETS_KEY)');
    }
    const { endpoints } = await this.webhooks.health();
    const credentialed = (this.sources?.list() ?? []).filter(
      ({ definition }) => definition.origin === 'api' && definition.auth !== undefined,
    ).length;
    const kept = [
      ...(endpoints ? [`the signing secrets of ${plural(endpoints, 'webhook endpoint')}`] : []),
      ...(credentialed ? [`the credentials of ${plural(credentialed, 'source')}`] : []),
    ];
    if (kept.length === 0) {
      return pass('No secrets stored yet; SECRETS_KEY is not set (set it before adding any)');
    }
    const said = kept.join(' and ');
    return warn(
      `${said[0].toUpperCase()}${said.slice(1)} are stored unsealed: SECRETS_KEY is not set (at least 32 random characters; secrets written from then on are sealed with AES-256-GCM)`,
    );
  }
}
