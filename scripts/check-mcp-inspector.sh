#!/usr/bin/env bash
# Checks the MCP server against the official inspector's CLI, over stdio and over HTTP:
# tools/list (titles, annotations, schemas), a tools/call that succeeds, and one with bad arguments
# (an isError result holding the REST 400 detail). Needs the registry once, for the pinned inspector.
# Verified with @modelcontextprotocol/inspector 2.12.0 on Node 20.20 (it declares Node >= 22.19 but
# its CLI runs on 20). Not part of CI. Usage: npm run build && scripts/check-mcp-inspector.sh
set -euo pipefail
cd "$(dirname "$0")/.."
INSPECTOR="@modelcontextprotocol/inspector@2.12.0"
PORT="${PORT:-18444}"
export DATA_DIR
DATA_DIR="$(mktemp -d)"
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$DATA_DIR"' EXIT

KEY="$(node dist/cli.js keys create --name inspector --template standard --json \
  | node -e 'process.stdin.on("data", (d) => process.stdout.write(JSON.parse(d).key))')"
inspect() { npx -y "$INSPECTOR" --cli "$@"; }

echo "== stdio: tools/list"
inspect -e DATA_DIR="$DATA_DIR" -e MCP_API_KEY="$KEY" node dist/cli.js mcp --method tools/list
echo "== stdio: tools/call greet"
inspect -e DATA_DIR="$DATA_DIR" -e MCP_API_KEY="$KEY" node dist/cli.js mcp \
  --method tools/call --tool-name greet --tool-arg name=Ada
echo "== stdio: tools/call greet with times=0 (expect an isError result)"
inspect -e DATA_DIR="$DATA_DIR" -e MCP_API_KEY="$KEY" node dist/cli.js mcp \
  --method tools/call --tool-name greet --tool-arg name=Ada --tool-arg times=0 || true

echo "== HTTP: tools/list"
PORT="$PORT" node dist/main.js >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -fs "localhost:$PORT/health/live" >/dev/null 2>&1 && break; sleep 0.1; done
inspect "http://127.0.0.1:$PORT/mcp" --transport http --header "Authorization: Bearer $KEY" \
  --method tools/list
