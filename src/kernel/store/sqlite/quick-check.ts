import { Worker } from 'node:worker_threads';
import { StoreUnavailableError } from '../store';

/**
 * The worker's code: opens the file read-only on a connection of its own and runs `quick_check`,
 * which reads every page of the database (seconds on a large one). Given as source, not as a file,
 * so that it runs the same from src/ under the tests and from dist/.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
let check;
try {
  check = new Database(workerData.file, { readonly: true, fileMustExist: true, timeout: 1000 });
  const rows = check.pragma('quick_check');
  parentPort.postMessage({ problems: rows.map((r) => r.quick_check).filter((r) => r !== 'ok') });
} catch (error) {
  parentPort.postMessage({ error: { code: error.code, message: String(error.message) } });
} finally {
  if (check) check.close();
}
`;

type Answer = { problems: string[] } | { error: { code?: string; message: string } };

/** SQLite's codes of a file that cannot be read or written: the store unavailable, not a bug. */
export const UNAVAILABLE_CODES = /^SQLITE_(CANTOPEN|IOERR|CORRUPT|NOTADB|READONLY|BUSY|FULL)/;

/** What a failure of the check means: the file unreadable is the store unavailable. */
function failureOf({ code, message }: { code?: string; message: string }): Error {
  return code && UNAVAILABLE_CODES.test(code)
    ? new StoreUnavailableError(`SQLite store failed: ${code}`)
    : new Error(message);
}

/**
 * SQLite's `quick_check` of the file as it is on disk, in a worker thread: its reads never hold
 * the event loop, whatever the size of the database (issue 59: doctor over a large ledger). The
 * problems it reports, none when the file is intact.
 */
export function quickCheckOffThread(file: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { file, module: require.resolve('better-sqlite3') },
    });
    let answered = false;
    worker.once('message', (answer: Answer) => {
      answered = true;
      if ('problems' in answer) resolve(answer.problems);
      else reject(failureOf(answer.error));
    });
    worker.once('error', (error: Error) => reject(error));
    worker.once('exit', (code) => {
      if (!answered)
        reject(new Error(`The SQLite integrity check ended (${code}) without an answer`));
    });
  });
}
