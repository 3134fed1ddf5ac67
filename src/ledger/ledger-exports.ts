import { Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { ApiError } from '../kernel/errors/api-error';
import { Settings, SETTINGS } from '../kernel/settings/settings';

/** What a refused export is told to wait (the contract's wave-5 decisions). */
export const EXPORT_RETRY_AFTER_SECONDS = 5;

/**
 * The whole-range streams of the ledger this instance serves at once: at most LEDGER_MAX_EXPORTS;
 * past it a 429 with `Retry-After` (docs/runs-and-ledger.md). A stream holds its place until it
 * closes: ended, failed, or cut off by its client (the HTTP adapters destroy a stream whose
 * response closed early).
 */
@Injectable()
export class LedgerExports {
  private streaming = 0;

  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

  /** How many streams are open now. */
  get open(): number {
    return this.streaming;
  }

  /**
   * Gives `stream` (not yet flowing) one of the places, or refuses it with the 429; the place is
   * given back once the stream closes.
   */
  admit<T extends Readable>(make: () => T): T {
    if (this.streaming >= this.settings.ledgerMaxExports) {
      throw new ApiError(
        429,
        `Too many ledger exports at once. Retry after ${EXPORT_RETRY_AFTER_SECONDS} seconds.`,
        { 'Retry-After': EXPORT_RETRY_AFTER_SECONDS },
      );
    }
    const stream = make();
    this.streaming += 1;
    stream.once('close', () => (this.streaming -= 1));
    return stream;
  }
}
