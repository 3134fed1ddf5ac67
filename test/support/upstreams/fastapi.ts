import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Debian's interpreter, the one with python3-fastapi and python3-uvicorn: the first `python3` on
 * PATH may be another one without them (pyenv, a virtualenv).
 */
export const DEBIAN_PYTHON = '/usr/bin/python3';
const APP = join(__dirname, 'fastapi_app.py');

/** The FastAPI service of fastapi_app.py, running on a loopback port of its own choosing. */
export interface FastApiService {
  /** its base URL, http://127.0.0.1:<port> */
  url: string;
  /** its OpenAPI document (FastAPI's own) */
  documentUrl: string;
  port: number;
  stop(): Promise<void>;
}

/** The port the app printed (`listening <port>`), or a failure with what it wrote. */
function printedPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      reject(new Error(`${DEBIAN_PYTHON} ${APP} ended (${code}) before listening: ${output}`)),
    );
  });
}

/** Waits until the app serves its document: it prints its port before uvicorn starts serving. */
async function serving(documentUrl: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      const response = await fetch(documentUrl);
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`The FastAPI app did not serve ${documentUrl}.`);
}

/** Starts fastapi_app.py with Debian's python3 and waits until it answers. */
export async function startFastApi(): Promise<FastApiService> {
  const child = spawn(DEBIAN_PYTHON, [APP], {
    env: { PATH: process.env.PATH ?? '', PYTHONUNBUFFERED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const port = await printedPort(child);
    const url = `http://127.0.0.1:${port}`;
    await serving(`${url}/openapi.json`);
    return { url, documentUrl: `${url}/openapi.json`, port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
