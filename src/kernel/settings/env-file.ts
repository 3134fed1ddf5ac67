import { readEnvFile } from './environment';

/**
 * Imported by the entry points before what reads the environment as it loads (the tracing gate):
 * `.env` holds for it as for every other setting. A file that cannot be read is reported by
 * prepareEnvironment, as an operator's mistake, one line.
 */
try {
  readEnvFile();
} catch {
  // Reported when the settings are read.
}
