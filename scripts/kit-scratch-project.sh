#!/usr/bin/env bash
# `npm run test:kit-project` (and `.ci/run`): a team's project on the package, made as
# docs/testing-kit.md says, from an empty folder outside the repository. Packs the package
# (`npm pack`), then runs the page's steps word for word (the sh block after its marker: npm init,
# the install line with the packed tarball in place of the registry's name, `tools init`, `tools
# new`, `npx jest`, `npm run typecheck`) in the shell, one after another. Then what the steps do not
# show: the package's two entries load with `require` and with `import`; the project type-checks
# with the shipped .d.ts files read (skipLibCheck off), by the TypeScript it installed and by this
# repository's 5.x; and a suite of the team's (test/kit-project/test/) serves the generated
# word_count over REST and MCP of both eras, on SQLite and on a redis-server the kit starts.
# KEEP_KIT_PROJECT=1 keeps the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
started=$SECONDS

# dist/ as `npm run build` makes it, unless it is up to date (.ci/run has just built it).
node scripts/ensure-built.js

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tis-kit-project-XXXXXX")
if [ "${KEEP_KIT_PROJECT:-}" = 1 ]; then
  echo "kit project: keeping $WORK"
else
  trap 'cleaned=$SECONDS; rm -rf "$WORK"; echo "kit project: removed in $((SECONDS - cleaned)) s"' EXIT
fi

TARBALL=$WORK/$(npm pack --silent --pack-destination "$WORK" | tail -n 1)
echo "kit project: packed $(basename "$TARBALL") ($(du -k "$TARBALL" | cut -f1) KiB)"

# The page's steps, a command a line (a line ending in \ joined to the next), the package's name
# and major replaced by the tarball's path. The folder they make is the project.
node - "$ROOT/docs/testing-kit.md" "$TARBALL" >"$WORK/steps" <<'JS'
const { readFileSync } = require('node:fs');
const [page, tarball] = process.argv.slice(2);
const MARKER = '<!-- npm run test:kit-project runs these steps, word for word -->';
const text = readFileSync(page, 'utf8');
const at = text.indexOf(MARKER);
const block = at < 0 ? null : /^```sh\n([\s\S]*?)^```$/m.exec(text.slice(at + MARKER.length));
if (!block) throw new Error(`${page}: no sh block after "${MARKER}"`);
const steps = block[1].replace(/\\\n\s*/g, '').split('\n').filter((step) => step.trim());
const install = steps.findIndex((step) => / tool-invocation-service@\S+/.test(step));
if (install < 0) throw new Error(`${page}: no step installs tool-invocation-service@<major>`);
steps[install] = steps[install].replace(/ tool-invocation-service@\S+/, ` ${tarball}`);
process.stdout.write(`${steps.join('\n')}\n`);
JS

# Quieter and quicker installs, through npm's environment rather than flags the page does not
# show: every package the registry sends is in npm's cache after `.ci/run`'s `npm ci`. The
# install's unreviewed scripts run with npm 11's notice, as on a team's first install (nothing
# compiles: better-sqlite3 13 carries its binaries); @scarf/scarf's install report is told to stay
# off the network.
export npm_config_prefer_offline=true npm_config_audit=false npm_config_fund=false
export npm_config_update_notifier=false SCARF_ANALYTICS=false

cd "$WORK"
# The steps read from descriptor 3, so that no command among them reads the next ones as its input.
while IFS= read -r step <&3; do
  echo "kit project: \$ $step"
  eval "$step" </dev/null
done 3<"$WORK/steps"
PROJECT=$PWD
[ "$PROJECT" != "$WORK" ] || { echo "kit project: the steps made no project folder" >&2; exit 1; }

echo "kit project: the entries load with require and import"
node -e '
  const kit = require("tool-invocation-service/testing");
  const main = require("tool-invocation-service");
  if (typeof kit.startTestApp !== "function") throw new Error("require: no startTestApp");
  if (typeof main.defineTool !== "function") throw new Error("require: no defineTool");
  console.log("  require: startTestApp, defineTool");
'
node --input-type=module -e '
  import { startTestApp } from "tool-invocation-service/testing";
  import { defineTool } from "tool-invocation-service";
  if (typeof startTestApp !== "function") throw new Error("import: no startTestApp");
  if (typeof defineTool !== "function") throw new Error("import: no defineTool");
  console.log("  import: startTestApp, defineTool");
'

# A suite of the team's own beside the generated specs: type-checked with them, then run.
cp "$ROOT/test/kit-project/test/stores.e2e-spec.ts" test/

# The tsconfig `tools init` wrote, with every declaration file read, the package's included: they
# need no types it does not bring.
echo "kit project: tsc --skipLibCheck false ($(npx --no-install tsc --version); the repository's: $(node "$ROOT/node_modules/typescript/bin/tsc" --version))"
npx --no-install tsc --noEmit --skipLibCheck false
node "$ROOT/node_modules/typescript/bin/tsc" --noEmit --skipLibCheck false -p .

echo "kit project: a team's suite on the generated word_count, on SQLite and on Redis"
npx --no-install jest --ci test/stores.e2e-spec.ts
echo "kit project: done in $((SECONDS - started)) s"
