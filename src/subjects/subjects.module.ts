import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits';
import { ApiKeysService } from './api-keys.service';
import { AuthFailureLimiter } from './auth-failure.limiter';
import { Challenges } from '../auth';
import { KeySearch } from './key-search';
import { SEARCH_BUDGET, SEARCH_BUDGET_TOKEN } from '../kernel/common/bounded-search';

/** Keys and failed-authentication counts without HTTP: for the pipeline, the CLI and stdio MCP. */
@Module({
  imports: [LimitsModule],
  providers: [
    ApiKeysService,
    AuthFailureLimiter,
    Challenges,
    KeySearch,
    { provide: SEARCH_BUDGET_TOKEN, useValue: SEARCH_BUDGET },
  ],
  exports: [ApiKeysService, AuthFailureLimiter, Challenges, KeySearch],
})
export class KeysModule {}
