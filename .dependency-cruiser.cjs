/**
 * The floors of src/, bottom up: a folder may import its own floor's folders (without a loop) and
 * any floor below, never one above. `npm run lint` (depcruise src test bench) fails on any import
 * cycle, in src/, test/ or bench/, and on any upward import in src/. The root files (main.ts,
 * app.module.ts, app.setup.ts, tools.ts, cli.ts) stand on top. Two backends of a store concern
 * never import each other (no-backend-to-backend).
 */
const FLOORS = [
  ['common', 'settings'],
  ['store', 'http', 'docs'],
  ['errors'],
  ['validation'],
  ['limits', 'audit'],
  ['auth'],
  ['oauth'],
  ['configuration'],
  ['logging', 'health'],
  ['tools'],
  ['metrics'],
  ['invocation'],
  ['console'],
  ['mcp'],
  ['cli'],
];

const folders = (names) => `^src/(${names.join('|')})/`;

const upward = FLOORS.slice(0, -1).map((floor, i) => ({
  name: `no-upward-from-${floor.join('-')}`,
  comment: `${floor.join(', ')} may only import folders on its floor or below`,
  severity: 'error',
  from: { path: folders(floor) },
  to: { path: folders(FLOORS.slice(i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files that import each other in a loop (the tests and the bench included)',
      severity: 'error',
      from: { path: '^(src|test|bench)/' },
      to: { circular: true },
    },
    {
      name: 'no-root-from-folders',
      comment: 'The root files build the process from the folders; no folder imports them',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    {
      name: 'no-backend-to-backend',
      comment: "A store concern's SQLite implementation never imports a Redis one, nor the reverse",
      severity: 'error',
      from: { path: '^src/store/(sqlite/|[^/]+/sqlite-)' },
      to: { path: '^src/store/(redis/|[^/]+/redis-)' },
    },
    {
      name: 'no-backend-to-backend-reverse',
      comment: "A store concern's Redis implementation never imports a SQLite one",
      severity: 'error',
      from: { path: '^src/store/(redis/|[^/]+/redis-)' },
      to: { path: '^src/store/(sqlite/|[^/]+/sqlite-)' },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
