/**
 * The ledger feature's public entry: what the other features, the transports and the tools may use
 * of it. Nothing else of this folder is imported from outside it.
 */
export { LEDGER_COLUMNS, LedgerKeys, newLedgerId, withTime } from './ledger-entry';
export type { LedgerEntry, LedgerTransport, LedgerWrite, NewLedgerEntry } from './ledger-entry';
export { CSV_HEADER, csvLine, ndjsonLine, stripeMeterEvent } from './ledger-formats';
export type { StripeMeterEvent } from './ledger-formats';
export { LedgerEntryView, LedgerPageView, LedgerSubjectView } from './ledger.dto';
export { LedgerModule, LedgerUpkeepModule } from './ledger.module';
export { LedgerService, ledgerQuery } from './ledger.service';
export type { LedgerPage } from './ledger.service';
export { LedgerExports } from './ledger-exports';
export { LedgerStore } from './ledger.store';
export type { LedgerDaySums, LedgerQuery, LedgerSums } from './ledger.store';
export {
  indexEntries,
  LEDGER_WRITE_ARGUMENTS,
  LEDGER_WRITE_KEYS,
  LEDGER_WRITE_LUA,
  ledgerWriteArguments,
  ledgerWriteKeys,
} from './redis-ledger.writer';
export { SqliteLedgerWriter } from './sqlite-ledger.writer';
