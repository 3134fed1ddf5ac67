/**
 * The ledger feature's public entry: what the other features, the transports and the tools may use
 * of it. Nothing else of this folder is imported from outside it.
 */
export {
  INSERT_LEDGER_ENTRY,
  LEDGER_COLUMNS,
  LEDGER_MIGRATIONS,
  LedgerKeys,
  ledgerValues,
  newLedgerId,
  withTime,
} from './ledger-entry';
export type { LedgerEntry, LedgerTransport, NewLedgerEntry } from './ledger-entry';
export { CSV_HEADER, csvLine, ndjsonLine, stripeMeterEvent } from './ledger-formats';
export type { StripeMeterEvent } from './ledger-formats';
export { LedgerModule, LedgerUpkeepModule } from './ledger.module';
export { LedgerService, ledgerQuery } from './ledger.service';
export type { LedgerPage } from './ledger.service';
export { LedgerStore } from './ledger.store';
export type { LedgerQuery, LedgerSums } from './ledger.store';
