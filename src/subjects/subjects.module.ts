import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits';
import { WebhooksModule } from '../webhooks';
import { KeysService } from './keys.service';
import { KeyChangeLog } from './key-events';
import { KeyStore } from './key.store';
import { PrincipalStore } from './principal.store';
import { SUBJECT_STORES } from './subjects.stores';
import { AuthFailureLimiter } from './auth-failure.limiter';
import { AuthChallenges } from '../kernel/auth/challenges';
import { KeySearch } from './key-search';
import { KeySubjects } from './key.subjects';
import { SubjectsService } from './subjects.service';
import { SEARCH_BUDGET, SEARCH_BUDGET_TOKEN } from '../kernel/common/bounded-search';

/**
 * Keys, the subjects' one implementation (SubjectsService) and failed-authentication counts,
 * without HTTP: for the checks of a call, the REST routes, the CLI and stdio MCP.
 */
@Module({
  imports: [LimitsModule, WebhooksModule],
  providers: [
    ...SUBJECT_STORES,
    KeysService,
    KeyChangeLog,
    AuthFailureLimiter,
    AuthChallenges,
    KeySearch,
    SubjectsService,
    KeySubjects,
    { provide: SEARCH_BUDGET_TOKEN, useValue: SEARCH_BUDGET },
  ],
  exports: [
    KeyStore,
    PrincipalStore,
    KeysService,
    AuthFailureLimiter,
    AuthChallenges,
    KeySearch,
    SubjectsService,
    KeySubjects,
  ],
})
export class SubjectsModule {}
