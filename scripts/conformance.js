#!/usr/bin/env node
// The official MCP conformance suite (@modelcontextprotocol/conformance, Node 22+) against a
// source's own endpoint, POST /mcp/sources/<source>, compared with the same upstream spoken to
// directly: `@modelcontextprotocol/server-everything` over Streamable HTTP, the compiled service
// (dist/, `npm run build` first) with that server as its source `everything`, and a loopback proxy
// in front of the service that adds the key (the suite sends no credentials). Every server
// scenario that passes directly must pass through the service; `dns-rebinding-protection` is left
// out of the comparison (the proxy rewrites Host). `npm run test:conformance` runs this; it prints
// both summaries and what differs, and exits 1 when a scenario passes directly only.
const { spawn } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { createServer, request } = require('node:http');
const { createServer: netServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const LEFT_OUT = new Set(['dns-rebinding-protection']);
const SUITE = require.resolve('@modelcontextprotocol/conformance/dist/index.js', { paths: [ROOT] });
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js', {
  paths: [ROOT],
});

function freePort() {
  return new Promise((resolve, reject) => {
    const server = netServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/** Waits until `check` answers true, every 200 ms, at most `ms`. */
async function until(check, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function answers(url, headers = {}) {
  const res = await fetch(url, { headers });
  return res.ok ? res.json() : false;
}

/** A proxy on `port` that sends every request to `target` with `Authorization: Bearer <key>`. */
function keyProxy(port, target, key) {
  const server = createServer((req, res) => {
    const headers = { ...req.headers, host: target.host, authorization: `Bearer ${key}` };
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: req.method,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

/** Runs the suite against `url`: each scenario's name and whether every check passed. */
function runSuite(url, dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SUITE, 'server', '--url', url, '-o', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', () => {
      const summary = output.slice(output.indexOf('=== SUMMARY ==='));
      const results = new Map();
      for (const [, mark, name] of summary.matchAll(/^([✓✗]) ([\w-]+):/gm)) {
        results.set(name, mark === '✓');
      }
      if (results.size === 0) reject(new Error(`The suite printed no summary:\n${output}`));
      else resolve({ results, summary });
    });
  });
}

function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

async function main() {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'tis-conformance-'));
  const [upstreamPort, servicePort, proxyPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env = { PATH: process.env.PATH ?? '' };
  let everything, service, proxy;
  try {
    everything = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...env, PORT: String(upstreamPort) },
      stdio: 'ignore',
    });
    const upstream = `http://127.0.0.1:${upstreamPort}/mcp`;
    const config = join(dir, 'config.yaml');
    writeFileSync(config, `sources:\n  everything:\n    kind: mcp\n    url: ${upstream}\n`);
    const data = join(dir, 'data');
    service = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
      env: {
        ...env,
        DATA_DIR: data,
        HOST: '127.0.0.1',
        PORT: String(servicePort),
        CONFIG_FILE: config,
        SOURCE_ALLOW_PRIVATE: 'true',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const base = `http://127.0.0.1:${servicePort}`;
    await until(() => answers(`${base}/health/live`), 60_000, 'The service answering');
    const key = readFileSync(join(data, 'initial-api-key'), 'utf8').trim();
    const admin = { Authorization: `Bearer ${key}` };
    await until(
      async () => (await answers(`${base}/api/v1/sources/everything`, admin)).state === 'ready',
      60_000,
      'The source everything being ready',
    );
    proxy = await keyProxy(proxyPort, new URL(`${base}/mcp/sources/everything`), key);
    const direct = await runSuite(upstream, join(dir, 'direct'));
    const through = await runSuite(`http://127.0.0.1:${proxyPort}/mcp`, join(dir, 'through'));
    process.stdout.write(`Directly (${upstream}):\n${direct.summary}\n`);
    process.stdout.write(`Through /mcp/sources/everything:\n${through.summary}\n`);
    const lost = [...direct.results]
      .filter(
        ([name, passed]) => passed && !LEFT_OUT.has(name) && through.results.get(name) !== true,
      )
      .map(([name]) => name);
    const gained = [...through.results]
      .filter(
        ([name, passed]) => passed && !LEFT_OUT.has(name) && direct.results.get(name) !== true,
      )
      .map(([name]) => name);
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stdout.write(
      `Passed directly only: ${lost.join(', ') || 'none'}\nPassed through the service only: ${gained.join(', ') || 'none'}\n(${seconds} s; dns-rebinding-protection left out)\n`,
    );
    process.exitCode = lost.length ? 1 : 0;
  } finally {
    proxy?.close();
    await Promise.all([stop(service), stop(everything)]);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
