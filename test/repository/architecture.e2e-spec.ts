import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * docs/architecture.md is what a maintainer reads before the code: it must name every folder of
 * src/ (a feature, the kernel's parts, each transport) and draw the checks of a call as
 * `CallChecks.checkOnce` numbers them. A new feature, kernel part or transport, or a check added
 * to the order, fails here until the page says so. A tool's own folder (src/tools/<name>/) is not
 * asked for: a tool added changes no tracked file but its own, its line in src/tools.ts and its spec.
 */
const ROOT = resolve(__dirname, '../..');
const PAGE = 'docs/architecture.md';
const CHECKS = 'src/invocations/call-checks.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The folders right under `path` (of src/), as `<path>/<name>`. */
function foldersOf(path: string): string[] {
  return readdirSync(join(ROOT, path), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${path}/${entry.name}`);
}

/** The folders the page must name: src/'s, and those of its kernel and transports. */
function namedFolders(): string[] {
  const top = foldersOf('src');
  const parts = ['src/kernel', 'src/transports'].flatMap(foldersOf);
  return [...top, ...parts].map((folder) => folder.replace(/^src\//, '')).sort();
}

/** Whether the page names `folder` (`webhooks`, `kernel/http`) as a folder: `webhooks/`, `http/`. */
function names(page: string, folder: string): boolean {
  const last = folder.split('/').pop() as string;
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[\\s\`(/])(${escaped(folder)}|${escaped(last)})/`, 'm').test(page);
}

/** The step numbers of `CallChecks.checkOnce`: its comments `// 1. …`, `// 2. …` in order. */
function stepsInCode(): number[] {
  const source = read(CHECKS);
  const body = source.slice(source.indexOf('private async checkOnce('));
  const end = body.indexOf('\n  }\n');
  return [...body.slice(0, end).matchAll(/^\s*\/\/ (\d+)\. /gm)].map(([, n]) => Number(n));
}

/** The numbered checks of the page's diagram of a call: its nodes `["1 authenticate …"]`. */
function stepsInDiagram(page: string): number[] {
  const diagram = /^```mermaid\n([\s\S]*?)^```/m.exec(page.slice(page.indexOf("## A call's path")));
  return [...(diagram?.[1] ?? '').matchAll(/\["(\d+) /g)].map(([, n]) => Number(n));
}

describe('docs/architecture.md follows the code', () => {
  const page = read(PAGE);

  it('names every folder of src/, of its kernel and of its transports', () => {
    const folders = namedFolders();
    expect(folders).toEqual(expect.arrayContaining(['webhooks', 'kernel/http', 'transports/rest']));
    expect(folders.filter((folder) => !names(page, folder))).toEqual([]);
  });

  it("draws as many checks of a call as CallChecks makes, numbered as the code's", () => {
    const steps = stepsInCode();
    expect(steps.length).toBeGreaterThanOrEqual(10);
    expect(steps).toEqual(steps.map((_, i) => i + 1));
    expect(stepsInDiagram(page)).toEqual(steps);
  });

  it('finds what it looks for: a folder the page leaves out, a check it does not draw', () => {
    expect(names('  audit/ auth/\n', 'audit')).toBe(true);
    expect(names('the `kernel/http/` plumbing', 'kernel/http')).toBe(true);
    expect(names('webhooks, runs', 'webhooks')).toBe(false);
    expect(names('sub-runs/', 'runs')).toBe(false);
    const nine = page.replace(/\n.*\["10 [^\n]*/, '');
    expect(stepsInDiagram(nine)).toEqual(stepsInCode().slice(0, 9));
  });
});
