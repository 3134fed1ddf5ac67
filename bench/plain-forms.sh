#!/bin/bash
# A copy of a build with one hot-path trick of docs/performance.md ("Why the hot path is written as
# it is") put back in its plain form, for `bench/instructions.sh` to count beside the build itself
# (docs/performance.md, "Judged again on Node 24"). The copy is made from the build's dist/ (no
# rebuild); each plain form replaces a piece of the compiled JavaScript that must be found exactly
# once, so a build whose code has moved stops here rather than measuring something else.
#
#   bash bench/plain-forms.sh <app dir> <trick> [directory]   # prints the directory on its last line
#   bash bench/instructions.sh "$(bash bench/plain-forms.sh . als | tail -1)"
#
# tricks: als (one AsyncLocalStorage.run per request around the whole pipeline, its store read
#   where the audit actor is made), getheaders (takeOver copies reply.getHeaders()), invoke (the
#   MCP call's Call spread from its caller), quota (X-Quota-* as an object literal of conditional
#   spreads), setall (Fastify's headers through reply.header()), wirename (header names given to
#   setHeader as written), pretenuring (V8's allocation-site pretenuring left on), body (every JSON
#   body read by body-parser).
set -euo pipefail
APP=$(cd "${1:?usage: bash bench/plain-forms.sh <app dir> <trick> [directory]}" && pwd)
TRICK=${2:?a trick: als getheaders invoke quota setall wirename pretenuring body}
OUT=${3:-$(mktemp -d "${TMPDIR:-/tmp}/tis-plain-$TRICK-XXXXXX")}
mkdir -p "$OUT"
rm -rf "$OUT/dist"
cp -r "$APP/dist" "$OUT/dist"
ln -sfn "$(readlink -f "$APP/node_modules")" "$OUT/node_modules"
cp "$APP/package.json" "$OUT/"
OUT=$OUT TRICK=$TRICK node - <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const { OUT, TRICK } = process.env;
const FASTIFY = 'kernel/http/fastify.js';
const SET_HEADER = 'res.raw.setHeader((0, wire_name_1.wireName)(name), value)';
const ALS_SCOPE = `"use strict";
const { AsyncLocalStorage } = require("node:async_hooks");
const http = require("node:http");
exports.scope = new AsyncLocalStorage();
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event !== "request") return emit.apply(this, arguments);
  return exports.scope.run({ req, caller: undefined }, () => emit.call(this, event, req, res));
};
`;
const forms = {
  als: [
    ['main.js', 'require("./kernel/common/heap-tuning");',
      'require("./kernel/common/heap-tuning");\nrequire("./als-scope");'],
    ['audit/audit.context.js', 'function callerActor(caller, requestId) {',
      'const als_scope_1 = require("../als-scope");\nfunction callerActor(caller, requestId) {\n' +
      '    const store = als_scope_1.scope.getStore();\n    if (store) store.caller = caller;\n' +
      '    requestId = requestId ?? store?.req?.id ?? null;'],
  ],
  getheaders: [[FASTIFY, 'const held = fastifyHeaders(reply);', 'const held = reply.getHeaders();']],
  invoke: [['invocations/tool.invoker.js', /const call = \{\s+transport: caller\.transport,[^;]+background: io\.background\?\.id,\s+\};/,
    'const { onAnswer: _onAnswer, ...known } = caller;\n            const call = { ...known, ' +
    'scopes: (0, scopes_1.toolScopes)(tool), tool: tool.name, bearerErrorCodes: false, ' +
    'body: args ?? {}, background: io.background?.id };']],
  quota: [['limits/quota.service.js', 'function quotaHeaders(state, into = {}) {',
    `function quotaHeaders(state, into) {
    const plain = {
        ...(state.limit === null ? {} : { 'X-Quota-Limit': state.limit, 'X-Quota-Remaining': state.remaining ?? 0 }),
        'X-Quota-Used': state.used,
        'X-Quota-Reset': state.resetSeconds,
        ...(state.cost === undefined ? {} : { 'X-Quota-Cost': state.cost }),
        ...(state.monthly === null ? {} : { 'X-Quota-Monthly-Limit': state.monthly.limit,
            'X-Quota-Monthly-Used': state.monthly.used, 'X-Quota-Monthly-Remaining': state.monthly.remaining }),
        ...(state.run === undefined ? {} : { 'X-Run-Budget-Remaining': state.run.remaining }),
    };
    return into === undefined ? plain : Object.assign(into, plain);
}
function quotaHeadersAssigned(state, into = {}) {`]],
  setall: [
    [FASTIFY, SET_HEADER, 'res.header(name, value)'],
    [FASTIFY, '        reply.raw.setHeader(name, value);\n}', '        reply.header(name, value);\n}'],
  ],
  wirename: [[FASTIFY, SET_HEADER, 'res.raw.setHeader(name, value)']],
  pretenuring: [['main.js', 'require("./kernel/common/heap-tuning");', '']],
  body: [['kernel/http/body.js', 'function isPlainJsonBody(headers, limitBytes) {',
    'function isPlainJsonBody(headers, limitBytes) {\n    if (headers !== null) return false;']],
};
const edits = forms[TRICK];
if (!edits) throw new Error(`no plain form named ${TRICK}: ${Object.keys(forms).join(' ')}`);
for (const [file, find, replace] of edits) {
  const at = path.join(OUT, 'dist', file);
  const text = fs.readFileSync(at, 'utf8');
  const found = typeof find === 'string' ? text.split(find).length - 1 : (text.match(new RegExp(find, 'g')) ?? []).length;
  if (found !== 1) throw new Error(`${file}: the trick's code found ${found} times, not once`);
  fs.writeFileSync(at, text.replace(find, () => replace));
}
if (TRICK === 'als') fs.writeFileSync(path.join(OUT, 'dist', 'als-scope.js'), ALS_SCOPE);
EOF
echo "$OUT"
