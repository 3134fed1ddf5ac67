#!/usr/bin/env bash
# Checks the MCP server against the official inspector's CLI, in both eras (2026-07-28, negotiated
# through server/discover, and 2025, through initialize), over stdio and over HTTP: tools/list
# (titles, annotations, schemas), a tools/call that succeeds, and one with bad arguments (an isError
# result holding the REST 400 detail; the inspector exits 5 for a tool error).
# The inspector is the newest release, @modelcontextprotocol/inspector 2.12.0: it declares
# Node >= 22.19 but its CLI runs on Node 20.20 (npm warns EBADENGINE); every 0.16+ and 1.x release
# declares Node >= 22.7.5 too, and 1.x speaks 2025 only. Needs the npm registry once, to fetch it;
# not part of CI. Usage: npm run build && scripts/check-mcp-inspector.sh
set -euo pipefail
cd "$(dirname "$0")/.."
INSPECTOR="@modelcontextprotocol/inspector@2.12.0"
PORT="${PORT:-18444}"
export DATA_DIR MCP_INSPECTOR_SECRET_STORE=memory
DATA_DIR="$(mktemp -d)"
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$DATA_DIR"' EXIT

KEY="$(node dist/cli.js keys create --name inspector --template standard --json \
  | node -e 'process.stdin.on("data", (d) => process.stdout.write(JSON.parse(d).key))')"
inspect() { npx -y "$INSPECTOR" --cli "$@" --format json; }
# A tool error is the inspector's exit 5: the bad call's isError result is what is checked.
expect_tool_error() { if "$@"; then echo "expected a tool error" >&2; exit 1; elif [ $? -ne 5 ]; then exit 1; fi; }

PORT="$PORT" node dist/main.js >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -fs "localhost:$PORT/health/live" >/dev/null 2>&1 && break; sleep 0.1; done

for era in modern legacy; do
  stdio=(-e DATA_DIR="$DATA_DIR" -e MCP_API_KEY="$KEY" --protocol-era "$era" node dist/cli.js mcp)
  http=("http://127.0.0.1:$PORT/mcp" --transport http --protocol-era "$era"
    --header "Authorization: Bearer $KEY")
  for wire in stdio http; do
    declare -n target="$wire"
    echo "== $era over $wire: tools/list"
    inspect "${target[@]}" --method tools/list
    echo "== $era over $wire: tools/call greet"
    inspect "${target[@]}" --method tools/call --tool-name greet --tool-arg name=Ada
    echo "== $era over $wire: tools/call greet with times=0 (an isError result)"
    expect_tool_error inspect "${target[@]}" --method tools/call --tool-name greet \
      --tool-arg name=Ada --tool-arg times=0
  done
done
echo "== every check passed"
