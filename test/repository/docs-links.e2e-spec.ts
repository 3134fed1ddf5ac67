import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The README and the docs are read in a clone of the repository, where nothing beside it exists:
 * every relative link and every path they name must lie inside the repository, and exist.
 */
const ROOT = resolve(__dirname, '../..');
const PAGES = [
  'README.md',
  'bench/README.md',
  ...['docs', 'bench/history'].flatMap((folder) =>
    readdirSync(join(ROOT, folder))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `${folder}/${name}`),
  ),
];

/**
 * Folders and files the repository ignores by name (.gitignore, globs aside): made by a build, a
 * run or a bench, never committed (the console's types of the API among them).
 */
const GENERATED = readFileSync(join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line.includes('/') && !line.includes('*') && !line.startsWith('#'))
  .map((line) => line.replace(/^\/|\/$/g, ''));

/** The page's prose: fenced code blocks hold code (imports of a tool's own folder), not references. */
function prose(page: string): string {
  return readFileSync(join(ROOT, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
}

function inside(path: string): boolean {
  return path === ROOT || path.startsWith(ROOT + sep);
}

function generated(path: string): boolean {
  const from = relative(ROOT, path).split(sep).join('/');
  return GENERATED.some((folder) => from === folder || from.startsWith(`${folder}/`));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page's headings make, numbered as GitHub numbers repeated ones. */
function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of prose(page).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(heading);
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** What is wrong with a relative markdown link of `page`, if anything. */
function linkProblem(page: string, target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path ? resolve(ROOT, dirname(page), decodeURI(path)) : join(ROOT, page);
  if (!inside(file)) return 'points outside the repository';
  if (!existsSync(file)) return 'names a file that does not exist';
  if (anchor && file.endsWith('.md') && !anchorsOf(relative(ROOT, file)).has(anchor)) {
    return `has no heading #${anchor}`;
  }
  return undefined;
}

/**
 * What is wrong with a path `page` names in backticks, if anything. A path is `./…` or `../…`, or
 * starts with a folder of the repository (`src/…`); placeholders and globs (`<id>`, `*`) are
 * patterns, not paths. The docs write paths from the root (where commands run: `./data`), and a
 * `./…` path may be read from the page's folder too: it must lie inside the repository either way,
 * and exist (or be made by a run: a folder .gitignore names) either way.
 */
function pathProblem(page: string, text: string): string | undefined {
  if (/[\s*<>{}]/.test(text) || !/^[\w.@-]+(\/[\w.@-]*)+$/.test(text)) return undefined;
  const relativeToPage = /^\.\.?\//.test(text);
  const top = text.split('/')[0];
  if (!relativeToPage && !(existsSync(join(ROOT, top)) && top !== 'node_modules')) return undefined;
  const readings = [
    resolve(ROOT, text),
    ...(relativeToPage ? [resolve(ROOT, dirname(page), text)] : []),
  ];
  if (!readings.every(inside)) return 'points outside the repository';
  if (!readings.some((file) => existsSync(file) || generated(file))) {
    return 'names a file that does not exist';
  }
  return undefined;
}

describe('the docs link only inside the repository', () => {
  it.each(PAGES)('%s: relative links lead to files (and headings) of the repository', (page) => {
    const problems: string[] = [];
    for (const [, target] of prose(page).matchAll(/\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const problem = linkProblem(page, target);
      if (problem) problems.push(`(${target}) ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  it.each(PAGES)('%s: paths in backticks name files of the repository', (page) => {
    const problems: string[] = [];
    for (const [, text] of prose(page).matchAll(/`([^`\n]+)`/g)) {
      const problem = pathProblem(page, text);
      if (problem) problems.push(`\`${text}\` ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  it('finds what it looks for: a path outside, a missing file, a missing heading', () => {
    expect(pathProblem('README.md', '../shared/CONTRACT.md')).toBe('points outside the repository');
    expect(pathProblem('docs/decisions.md', '../shared/spec/x.md')).toBe(
      'points outside the repository',
    );
    expect(pathProblem('docs/development.md', './data')).toBeUndefined();
    expect(pathProblem('docs/x.md', 'src/http/request-checks.ts')).toBe(
      'names a file that does not exist',
    );
    expect(pathProblem('README.md', './data/initial-api-key')).toBeUndefined();
    expect(pathProblem('README.md', 'application/json')).toBeUndefined();
    expect(linkProblem('README.md', '../shared/CONTRACT.md')).toBe('points outside the repository');
    expect(linkProblem('README.md', 'docs/nope.md')).toBe('names a file that does not exist');
    expect(linkProblem('docs/api.md', 'errors.md#no-such-heading')).toBe(
      'has no heading #no-such-heading',
    );
    expect(linkProblem('docs/api.md', 'keys-and-limits.md#rate-limit-429')).toBeUndefined();
    expect(linkProblem('docs/api.md', '#retries-idempotency-key')).toBeUndefined();
  });

  it('gives the API reference a page of its own, linked from the README', () => {
    const api = prose('docs/api.md');
    for (const route of [
      'POST /api/v1/services/greet',
      'POST /api/v1/auth/api-keys',
      'PATCH /api/v1/auth/api-keys/<id>',
      'GET /api/v1/usage',
      'GET /api/v1/audit',
      'GET /health/live',
      'POST /mcp',
    ]) {
      expect(api).toContain(route);
    }
    expect(prose('README.md')).toContain('[docs/api.md](docs/api.md)');
  });
});
