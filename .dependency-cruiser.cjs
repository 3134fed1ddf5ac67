/**
 * The three tiers of src/ (docs/architecture.md): the kernel (src/kernel/), the features
 * (src/<feature>/, one folder each, reached from outside only through its index.ts), and what
 * stands on them: the tools (src/tools/<name>/), the transports (src/transports/: REST, MCP, CLI)
 * and the root files that build the processes (src/*.ts). Tiers only point down; nothing imports
 * a transport; no cycle anywhere in src/, test/ and bench/. Specs and tests may reach any file of
 * src/ (they test it), but never in a loop.
 */
const FEATURES = [
  'audit',
  'auth',
  'limits',
  'subjects',
  'oauth',
  'configuration',
  'logging',
  'health',
  'tools',
  'metrics',
  'idempotency',
  'invocations',
  'reports',
  'tracing',
  'webhooks',
  'ledger',
  'runs',
  'sources',
];
const feature = `^src/(${FEATURES.join('|')})/`;
/** A tool's own folder: src/tools/<name>/ (the files of src/tools/ itself are the tools feature). */
const TOOL = '^src/tools/[^/]+/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files that import each other in a loop (src, test, bench)',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'feature-files-reachable-from-its-index',
      comment:
        'Every file of a feature is reached from its index.ts (its module at least): so a loop between two features is a loop of files, which no-circular sees',
      severity: 'error',
      from: { path: `^src/(${FEATURES.join('|')})/index\\.ts$` },
      to: { path: '^src/$1/', pathNot: ['\\.spec\\.ts$', TOOL], reachable: false },
    },
    {
      name: 'kernel-knows-no-feature',
      comment:
        'The kernel stands on nothing of the service: no feature, tool, transport or root file',
      severity: 'error',
      from: { path: '^src/kernel/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^src/', pathNot: '^src/kernel/' },
    },
    {
      name: 'features-below-tools',
      comment: 'A feature never imports a tool; a tool is mounted by src/tools.ts',
      severity: 'error',
      from: { path: feature, pathNot: [TOOL, '\\.spec\\.ts$'] },
      to: { path: TOOL },
    },
    {
      name: 'nothing-imports-a-transport',
      comment: 'A transport adapts requests to the features; only the root files mount it',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/[^/]+\\.ts$', '^src/transports/', '\\.spec\\.ts$'] },
      to: { path: '^src/transports/' },
    },
    {
      name: 'one-transport-at-a-time',
      comment: 'A transport never imports another: what two share belongs to a feature',
      severity: 'error',
      from: { path: '^src/transports/([^/]+)/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^src/transports/', pathNot: '^src/transports/$1/' },
    },
    {
      name: 'feature-through-its-index',
      comment: 'Another feature is reached only through its index.ts (what its module exports)',
      severity: 'error',
      from: {
        path: '^src/([^/]+)/',
        pathNot: ['^src/kernel/', '^src/transports/', TOOL, '\\.spec\\.ts$'],
      },
      to: { path: feature, pathNot: ['^src/$1/', `${feature}index\\.ts$`, TOOL] },
    },
    {
      name: 'outside-through-the-index',
      comment: 'Tools, transports and root files reach a feature through its index.ts too',
      severity: 'error',
      from: {
        path: ['^src/[^/]+\\.ts$', '^src/transports/', '^src/testing/', TOOL],
        pathNot: '\\.spec\\.ts$',
      },
      to: { path: feature, pathNot: [`${feature}index\\.ts$`, TOOL] },
    },
    {
      name: 'no-root-from-folders',
      comment:
        'The root files build the processes; nothing in a folder imports them but the test kit, which starts one',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: ['\\.spec\\.ts$', '^src/testing/'] },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    {
      name: 'no-backend-to-backend',
      comment: "A store's SQLite implementation never imports a Redis one",
      severity: 'error',
      from: { path: ['^src/kernel/store/sqlite/', '/sqlite-[^/]+\\.ts$'] },
      to: { path: ['^src/kernel/store/redis/', '/redis-[^/]+\\.ts$'] },
    },
    {
      name: 'no-backend-to-backend-reverse',
      comment: "A store's Redis implementation never imports a SQLite one",
      severity: 'error',
      from: { path: ['^src/kernel/store/redis/', '/redis-[^/]+\\.ts$'] },
      to: { path: ['^src/kernel/store/sqlite/', '/sqlite-[^/]+\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The scratch project's template (scripts/kit-scratch-project.sh): it imports the installed
    // package, which does not resolve here.
    exclude: { path: '^test/kit-project/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
