/**
 * bench:adversarial's issuer phase: the server's memory while it refuses an authorization server's
 * answer of BENCH_ADV_ISSUER_MB (400 MB) to its metadata request, then to its JWKS request
 * (OAUTH_ISSUER_MAX_BYTES keeps its default, 1 MiB). Goal: the server's RSS stays under 300 MB.
 *
 * The hostile issuer is a loopback server in this process. It answers 503 until it is armed, so
 * the server's start-up discovery fails and its RSS is read at rest first; armed, it streams its
 * answer (a JSON document padded with spaces, so a reader that takes it whole would accept it) as
 * fast as the server reads it, and counts what it wrote before the server closed the connection.
 * A token naming the issuer (unsigned: the refusal comes before any signature is checked) then
 * makes the server ask again, five seconds after the failure at start-up; the server's RSS is
 * sampled every 10 ms from /proc until the answer's connection is over.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { freePort, num, removeDir, rssMb, sleep, stop, tempDir, trackChild } from './lib';

const OFFERED_MB = num('BENCH_ADV_ISSUER_MB', 400);
export const ISSUER_RSS_GOAL_MB = 300;
/** The server asks a failed issuer again no sooner than this after the failure. */
const RETRY_AFTER_FAILURE_MS = 5_000;
const PADDING = Buffer.alloc(256 * 1024, 0x20);

type Document = 'metadata' | 'jwks';

export interface IssuerResult {
  document: Document;
  offeredBytes: number;
  writtenBytes: number;
  closedEarly: boolean;
  statuses: Record<string, number>;
  firstAnswerMs?: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
  /** VmHWM: the highest RSS the process ever had, before arming and at the end. */
  hwmBeforeMb: number;
  hwmAfterMb: number;
  ok: boolean;
}

interface HostileIssuer {
  url: string;
  arm(): void;
  /** Settles when the hostile answer's connection is over: whether the server closed it first. */
  answered: Promise<boolean>;
  written(): number;
  stop(): Promise<void>;
}

async function startIssuer(document: Document, bytes: number): Promise<HostileIssuer> {
  let armed = false;
  let written = 0;
  let settle: (closedEarly: boolean) => void = () => undefined;
  const answered = new Promise<boolean>((resolve) => (settle = resolve));
  let url = '';
  const documents = (): Record<Document, string> => ({
    metadata: JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks` }),
    jwks: JSON.stringify({ keys: [] }),
  });
  const server = createServer((req, res) => {
    const path = req.url ?? '';
    const asked: Document | undefined =
      path === '/jwks' ? 'jwks' : path.endsWith('openid-configuration') ? 'metadata' : undefined;
    if (asked === undefined) return void res.writeHead(404).end();
    if (asked !== document) return void res.writeHead(200).end(documents()[asked]);
    if (!armed) return void res.writeHead(503).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    void stream(res, documents()[asked], bytes, (n) => (written += n)).then(settle);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    arm: () => (armed = true),
    answered,
    written: () => written,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `document` padded to `bytes` as the connection drains; true when the client closed first. */
async function stream(
  res: ServerResponse,
  document: string,
  bytes: number,
  count: (n: number) => void,
): Promise<boolean> {
  let closed = false;
  const closing = new Promise<void>((resolve) =>
    res.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  const write = (chunk: Buffer | string) => {
    count(Buffer.byteLength(chunk));
    return res.write(chunk);
  };
  write(document.slice(0, -1));
  let left = bytes - Buffer.byteLength(document);
  while (left > 0 && !closed) {
    const chunk = PADDING.subarray(0, Math.min(PADDING.length, left));
    left -= chunk.length;
    if (!write(chunk)) {
      await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closing]);
    }
  }
  if (!closed) res.end('}');
  await closing;
  return !res.writableFinished;
}

function hwmMb(pid: number): number {
  const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

/** A compact JWS naming `iss`: enough to make the server ask that issuer for its keys. */
function tokenOf(iss: string, aud: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return `${part({ alg: 'RS256', kid: 'bench' })}.${part({ iss, sub: 'bench', aud, exp })}.c2ln`;
}

function status(port: number, path: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.statusCode)));
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve(error.message));
    req.end('{"name":"Ada"}');
  });
}

async function answersMetrics(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/metrics`)).status === 200;
  } catch {
    return false;
  }
}

async function refuse(appDir: string, document: Document): Promise<IssuerResult> {
  const offeredBytes = OFFERED_MB * 1_000_000;
  const issuer = await startIssuer(document, offeredBytes);
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const dataDir = tempDir('tis-adv-issuer-');
  const child = trackChild(
    spawn(process.execPath, ['dist/main.js'], {
      cwd: appDir,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: publicUrl,
        OAUTH_ISSUERS: issuer.url,
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    }),
  );
  try {
    for (let i = 0; i < 300 && !(await answersMetrics(port)); i++) await sleep(50);
    const pid = child.pid as number;
    // The start-up discovery has failed (the issuer is not armed): the next request may ask again.
    await sleep(RETRY_AFTER_FAILURE_MS + 1000);
    const rssBeforeMb = rssMb(pid);
    const hwmBeforeMb = hwmMb(pid);
    let rssPeakMb = rssBeforeMb;
    const sampler = setInterval(() => {
      if (child.exitCode === null) rssPeakMb = Math.max(rssPeakMb, rssMb(pid));
    }, 10);
    issuer.arm();
    const headers = {
      'content-type': 'application/json',
      authorization: `Bearer ${tokenOf(issuer.url, publicUrl)}`,
    };
    const asked = performance.now();
    const first = await status(port, '/api/v1/services/greet', headers);
    const firstAnswerMs = Math.round(performance.now() - asked);
    const statuses: Record<string, number> = { [first]: 1 };
    for (let i = 0; i < 4; i++) {
      const next = await status(port, '/api/v1/services/greet', headers);
      statuses[next] = (statuses[next] ?? 0) + 1;
    }
    const closedEarly = await Promise.race([issuer.answered, sleep(60_000).then(() => false)]);
    await sleep(1000);
    clearInterval(sampler);
    const rssAfterMb = rssMb(pid);
    return {
      document,
      offeredBytes,
      writtenBytes: issuer.written(),
      closedEarly,
      statuses,
      firstAnswerMs,
      rssBeforeMb,
      rssPeakMb,
      rssAfterMb,
      hwmBeforeMb,
      hwmAfterMb: hwmMb(pid),
      ok: rssPeakMb < ISSUER_RSS_GOAL_MB && Object.keys(statuses).join() === '503',
    };
  } finally {
    await stop(child);
    await issuer.stop();
    removeDir(dataDir);
  }
}

/** The phase: the metadata's refusal, then the JWKS's, each on a server of its own. */
export async function issuerPhase(
  appDir: string,
  log: (line: string) => void,
): Promise<IssuerResult[]> {
  const results: IssuerResult[] = [];
  for (const document of ['metadata', 'jwks'] as const) {
    log(`[issuer] a ${OFFERED_MB} MB ${document} answer`);
    const result = await refuse(appDir, document);
    log(
      `  wrote ${(result.writtenBytes / 1e6).toFixed(1)} MB before ${result.closedEarly ? 'the server closed' : 'the end'}; ` +
        `RSS ${result.rssBeforeMb} -> peak ${result.rssPeakMb} -> ${result.rssAfterMb} MB; ${JSON.stringify(result.statuses)}`,
    );
    results.push(result);
  }
  return results;
}

export function issuerTable(results: IssuerResult[]): string {
  const rows = results.map(
    (r) =>
      `| ${r.document} | ${r.offeredBytes / 1e6} MB | ${(r.writtenBytes / 1e6).toFixed(1)} MB${r.closedEarly ? ' (closed by the server)' : ''} | ` +
      `${Object.entries(r.statuses)
        .map(([s, n]) => `${s}×${n}`)
        .join(
          ' ',
        )} | ${r.firstAnswerMs} ms | ${r.rssBeforeMb} / ${r.rssPeakMb} / ${r.rssAfterMb} MB | ` +
      `${r.hwmBeforeMb} / ${r.hwmAfterMb} MB | ${r.ok ? 'PASS' : 'MISS'} |`,
  );
  return [
    `| issuer answer | offered | written | token statuses | first answer | RSS before / peak / after | VmHWM before / after | RSS < ${ISSUER_RSS_GOAL_MB} MB, 503 |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
