import { Module } from '@nestjs/common';
import { Clock, SystemClock } from '../kernel/common/clock';
import { LEDGER_STORES } from './ledger.stores';
import { LedgerService } from './ledger.service';
import { LedgerUpkeep } from './ledger.upkeep';

/**
 * Reading the ledger: its pages and ranges (the usage store writes it, src/limits/). It imports no
 * feature: the limits import its entry's shape, so it cannot import theirs.
 */
@Module({
  providers: [...LEDGER_STORES, LedgerService, { provide: Clock, useClass: SystemClock }],
  exports: [LedgerService, ...LEDGER_STORES, Clock],
})
export class LedgerModule {}

/** The hourly purge of entries past LEDGER_RETENTION_DAYS: the server's only. */
@Module({ imports: [LedgerModule], providers: [LedgerUpkeep] })
export class LedgerUpkeepModule {}
