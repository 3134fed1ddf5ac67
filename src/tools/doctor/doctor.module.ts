import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ConfigurationModule } from '../../configuration';
import { ApiKeysCheck } from './checks/api-keys.check';
import { CacheDirectoryCheck } from './checks/cache-directory.check';
import { ConfigFileCheck } from './checks/config-file.check';
import { ConfigOverridesCheck } from './checks/config-overrides.check';
import { RestartPendingCheck } from './checks/restart-pending.check';
import { DataDirectoryCheck } from './checks/data-directory.check';
import { DiskSpaceCheck } from './checks/disk-space.check';
import { RuntimeVersionCheck } from './checks/runtime-version.check';
import { StoreCheck } from './checks/store.check';
import { OAuthIssuersCheck } from './checks/oauth-issuers.check';
import { OAuthPrincipalsCheck } from './checks/oauth-principals.check';
import { OAuthModule } from '../../oauth';
import { WebhooksModule } from '../../webhooks';
import { WebhooksCheck } from './checks/webhooks.check';
import { SourcesCheck } from './checks/sources.check';
import { SecretsCheck } from './checks/secrets.check';
import { LedgerCheck } from './checks/ledger.check';
import { LedgerModule } from '../../ledger';
import { LimitsModule } from '../../limits';
import { SubjectsModule } from '../../subjects';
import { DoctorController } from './doctor.controller';
import { DoctorService } from './doctor.service';

@Module({
  imports: [
    DiscoveryModule,
    ConfigurationModule,
    OAuthModule,
    SubjectsModule,
    WebhooksModule,
    LedgerModule,
    LimitsModule,
  ],
  controllers: [DoctorController],
  providers: [
    DoctorService,
    RuntimeVersionCheck,
    ConfigFileCheck,
    ConfigOverridesCheck,
    RestartPendingCheck,
    DataDirectoryCheck,
    StoreCheck,
    CacheDirectoryCheck,
    ApiKeysCheck,
    DiskSpaceCheck,
    OAuthIssuersCheck,
    OAuthPrincipalsCheck,
    WebhooksCheck,
    SourcesCheck,
    SecretsCheck,
    LedgerCheck,
  ],
  exports: [DoctorService],
})
export class DoctorModule {}
