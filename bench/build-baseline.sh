#!/bin/sh
# Builds another commit of this repository for `BENCH_BASELINE_DIR` (bench/README.md, "Paired A/B"):
# its tree unpacked with `git archive` into a new temporary directory (no worktree, no branch, no
# network), this repository's node_modules linked into it, `nest build` run there. Prints the
# directory on its last line; remove it with `rm -rf` when done.
#
#   sh bench/build-baseline.sh pre-reshape
#   BENCH_BASELINE_DIR=/tmp/tis-base-… npm run bench
#
# The commit's package-lock.json should match this one's (the script warns when it differs): the
# build and the baseline service run on this repository's node_modules.
set -eu
commit="${1:?usage: sh bench/build-baseline.sh <commit or tag> [directory]}"
root="$(cd "$(dirname "$0")/.." && pwd)"
sha="$(git -C "$root" rev-parse --verify "$commit^{commit}")"
dir="${2:-$(mktemp -d "${TMPDIR:-/tmp}/tis-base-$(printf %.7s "$sha")-XXXXXX")}"
mkdir -p "$dir"
modules="$(readlink -f "$root/node_modules")"
[ -d "$modules" ] || { echo "no node_modules in $root: run npm ci there first" >&2; exit 1; }
git -C "$root" archive "$sha" | tar -x -C "$dir"
ln -sfn "$modules" "$dir/node_modules"
if ! git -C "$root" diff --quiet "$sha" -- package-lock.json; then
  echo "warning: package-lock.json of $commit differs from this checkout's; the build uses this checkout's node_modules" >&2
fi
echo "building $sha in $dir" >&2
(cd "$dir" && ./node_modules/.bin/nest build) >&2
[ -f "$dir/dist/main.js" ] && [ -f "$dir/dist/cli.js" ] || { echo "no dist/main.js and dist/cli.js in $dir" >&2; exit 1; }
printf '%s\n' "$sha" > "$dir/dist/BENCH_COMMIT"
echo "$dir"
