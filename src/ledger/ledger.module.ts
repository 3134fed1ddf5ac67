import { Module } from '@nestjs/common';
import { Clock, SystemClock } from '../kernel/common/clock';
import { LedgerExports } from './ledger-exports';
import { LEDGER_STORES } from './ledger.stores';
import { LedgerService } from './ledger.service';
import { LedgerUpkeep } from './ledger.upkeep';

/**
 * The ledger: its writers (SqliteLedgerWriter, and LEDGER_WRITE_LUA on Redis), which the usage
 * store's counting step calls in its own transaction or script (src/limits/); reading it, its pages
 * and ranges, and the places of its whole-range exports. It imports no feature: the limits import
 * its writers, so it cannot import theirs.
 */
@Module({
  providers: [
    ...LEDGER_STORES,
    LedgerService,
    LedgerExports,
    { provide: Clock, useClass: SystemClock },
  ],
  exports: [LedgerService, LedgerExports, ...LEDGER_STORES, Clock],
})
export class LedgerModule {}

/** The hourly purge of entries past LEDGER_RETENTION_DAYS: the server's only. */
@Module({ imports: [LedgerModule], providers: [LedgerUpkeep] })
export class LedgerUpkeepModule {}
