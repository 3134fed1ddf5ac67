#!/bin/bash
# Instructions per request of one pipeline target, counted by valgrind's callgrind: the measure of a
# change's cost that this machine's noisy throughput cannot give (a 5 % gate within ±1 %). Counting
# starts after a warm-up (JIT, caches, first connections) and covers N requests exactly.
#
#   sh bench/build-baseline.sh <commit> /tmp/base        # the build to compare with, once
#   bash bench/instructions.sh <app dir> [options]         # prints one line: Ir per request
#
# options (environment): ADAPTER=express|fastify (express), STORE=sqlite|redis (sqlite),
#   KIND=rest|mcp2025|mcp2026 (rest), CONFIG_YAML=<text> (a CONFIG_FILE for the service and its
#   key), WARM=<requests> (10000), N=<requests> (5000), CONNECTIONS (8), CG_OUT=<file> (keep
#   the profile), WEBHOOK=1 (a webhook endpoint subscribed to every event, on a loopback port
#   nothing listens on: what its presence costs a call), RUN=1 (the calls made with the token of a
#   run of the key, docs/runs-and-ledger.md: what a run costs a call), START_WAIT=<seconds> (240:
#   how long the service under valgrind may take to answer /health/live; more on a loaded machine),
#   ALLOW_NON2XX=<answers> (0: a load with more answers that are not 2xx stops the script, which
#   prints their statuses; on a machine so loaded that a call under valgrind can pass its deadline,
#   a few of the N change the count by well under their share of it).
# Needs valgrind (apt-get install -y valgrind) and, for STORE=redis, redis-server.
# Run each build in the same go, one after the other; differences under 1 % are noise.
set -euo pipefail
APP=$(cd "$1" && pwd)
ADAPTER=${ADAPTER:-express} STORE=${STORE:-sqlite} KIND=${KIND:-rest}
WARM=${WARM:-10000} N=${N:-5000} CONNECTIONS=${CONNECTIONS:-8}
HERE=$(cd "$(dirname "$0")/.." && pwd)
D=$(mktemp -d)
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
ENV=(DATA_DIR="$D" HTTP_ADAPTER="$ADAPTER")
REDIS_PID=
if [ "$STORE" = redis ]; then
  RPORT=$(free_port)
  redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$D/redis.log" 2>&1 &
  REDIS_PID=$!
  for _ in $(seq 50); do redis-cli -p "$RPORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  ENV+=(REDIS_URL="redis://127.0.0.1:$RPORT")
fi
if [ -n "${CONFIG_YAML:-}" ]; then
  printf '%s' "$CONFIG_YAML" >"$D/config.yaml"
  ENV+=(CONFIG_FILE="$D/config.yaml")
fi
PID=
# On any exit, a failed load included: the service under valgrind, its subshell and Redis go too.
cleanup() {
  set +e
  [ -n "$PID" ] && kill -INT "$PID" 2>/dev/null
  [ -n "${APP_JOB:-}" ] && kill "$APP_JOB" 2>/dev/null
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null
  rm -rf "$D"
}
trap cleanup EXIT

KEY=$(cd "$APP" && env "${ENV[@]}" node dist/cli.js keys create --name instructions --template standard \
  --plan unlimited --rate-limit 100000000 --json | node -e 'process.stdin.on("data",d=>console.log(JSON.parse(d).key))')
if [ "${WEBHOOK:-}" = 1 ]; then
  ENV+=(WEBHOOK_ALLOW_PRIVATE=true)
  (cd "$APP" && env "${ENV[@]}" node dist/cli.js webhooks create --url "http://127.0.0.1:$(free_port)/hooks" \
    --events '*' --json >/dev/null)
fi
PORT=$(free_port)
# callgrind_control finds the process through vgdb, which wants USER and HOST set.
(cd "$APP" && env "${ENV[@]}" USER=root LOGNAME=root PORT="$PORT" HOST=127.0.0.1 \
  valgrind --vgdb=yes --tool=callgrind --instr-atstart=no --callgrind-out-file="$D/cg.out" \
  node --single-threaded dist/main.js >"$D/log" 2>&1) &
APP_JOB=$!
LIVE=
for _ in $(seq "${START_WAIT:-240}"); do
  PID=$(pgrep -f "callgrind-out-file=$D/cg.out" | head -1 || true)
  curl -s -o /dev/null "http://127.0.0.1:$PORT/health/live" && { LIVE=1; break; }
  sleep 1
done
[ -n "$PID" ] && [ -n "$LIVE" ] || { echo "the service did not answer /health/live in ${START_WAIT:-240} s (START_WAIT)" >&2; cat "$D/log" >&2; exit 1; }
if [ "${RUN:-}" = 1 ]; then
  KEY=$(curl -s -X POST "http://127.0.0.1:$PORT/api/v1/runs" -H "Authorization: Bearer $KEY" \
    -H 'Content-Type: application/json' -d '{"budget": 1000000000, "ttl_seconds": 604800}' |
    node -e 'process.stdin.on("data",d=>console.log(JSON.parse(d).token))')
fi

load() {
  (cd "$HERE" && KIND=$KIND PORT=$PORT KEY=$KEY AMOUNT=$1 CONNECTIONS=$CONNECTIONS ALLOW_NON2XX=${ALLOW_NON2XX:-0} node -e '
const ac = require("autocannon");
const { KIND, PORT, KEY, AMOUNT, CONNECTIONS } = process.env;
const greet = { name: "Alice", shout: true };
const json = { "content-type": "application/json", authorization: `Bearer ${KEY}` };
const mcp = { ...json, accept: "application/json, text/event-stream" };
const call = (meta) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call",
  params: { name: "greet", arguments: greet, ...(meta ? { _meta: meta } : {}) } });
const kinds = {
  rest: ["/api/v1/services/greet", json, JSON.stringify(greet)],
  mcp2025: ["/mcp", { ...mcp, "mcp-protocol-version": "2025-06-18" }, call()],
  mcp2026: ["/mcp", { ...mcp, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
    "mcp-name": "greet" }, call({ "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {} })],
};
const [path, headers, body] = kinds[KIND];
ac({ url: `http://127.0.0.1:${PORT}${path}`, method: "POST", headers, body,
  connections: Number(CONNECTIONS), amount: Number(AMOUNT), timeout: 120 }).then((r) => {
  const codes = JSON.stringify(Object.fromEntries(Object.entries(r.statusCodeStats).map(([c, s]) => [c, s.count])));
  if (r.errors || r.non2xx > Number(process.env.ALLOW_NON2XX || 0)) {
    console.error(`non-2xx ${r.non2xx}, errors ${r.errors}, statuses ${codes}`); process.exit(1);
  }
  if (r.non2xx) console.error(`non-2xx ${r.non2xx} (allowed by ALLOW_NON2XX), statuses ${codes}`);
});')
}
load "$WARM"
USER=root HOST=127.0.0.1 callgrind_control -i on "$PID" >/dev/null
load "$N"
USER=root HOST=127.0.0.1 callgrind_control -i off "$PID" >/dev/null
USER=root HOST=127.0.0.1 callgrind_control -d "$PID" >/dev/null
sleep 2
kill -INT "$PID"
wait "$APP_JOB" || true
PID=
PER=$(grep -h '^summary:\|^totals:' "$D"/cg.out* | awk -v n="$N" '{ s += $2 } END { printf "%d", s / n }')
echo "$APP $KIND-$ADAPTER-$STORE${CONFIG_YAML:+ (config)}${RUN:+ (run)}: $PER instructions per request"
# CG_OUT=<file> keeps the profile, for callgrind_annotate (--inclusive=yes) and a diff of two.
if [ -n "${CG_OUT:-}" ]; then cat "$D"/cg.out* >"$CG_OUT"; fi
