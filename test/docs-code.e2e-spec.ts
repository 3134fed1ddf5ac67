import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

/**
 * The TypeScript of the README and the docs compiles, against the repository as it is: a reader
 * who copies a block gets code that builds. The conventions (docs/development.md#code-in-the-docs):
 *
 * - a block whose first line is a comment naming a `.ts` path (`// src/tools/forecast/forecast.module.ts`)
 *   is that file of the repository: it is compiled at that path, so its imports resolve as they
 *   would there, and the other file blocks of its page are beside it (a page may show a folder);
 *   a path that exists stands for that file, as the page shows it;
 * - any other block is a snippet: a module of its own beside its page, its statements run inside
 *   an async function (so `await` and a few lines of client code compile), its imports kept above.
 *
 * Each page is one program with the project's tsconfig.json: type errors, unknown imports and
 * missing names are all reported, with the page, the block's line and the message.
 */
const ROOT = resolve(__dirname, '..');
const PAGES = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** One TypeScript block of a page: where it is, and the file it is compiled as. */
interface Block {
  page: string;
  /** The line of the page where its code starts (1-based). */
  line: number;
  code: string;
  /** A file of the repository (`src/...`), or undefined for a snippet. */
  path?: string;
}

/** A first line `// <path>.ts` names the file the block is (words may follow: `: what it is`). */
const FILE_COMMENT = /^\/\/ ((?:\.{0,2}\/)?[\w.@/-]+\.ts)\b/;

/** The ```ts and ```typescript blocks of a markdown text, indented ones (in lists) included. */
export function blocksOf(page: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^( *)(`{3,})(ts|typescript)[^\S\n]*[^\n`]*\n([\s\S]*?)^ *\2`*[^\S\n]*$/gm;
  for (const match of markdown.matchAll(fence)) {
    const [, indent, , , body] = match;
    const code = body
      .split('\n')
      .map((text) => (text.startsWith(indent) ? text.slice(indent.length) : text.trimStart()))
      .join('\n');
    const line = markdown.slice(0, match.index).split('\n').length + 1;
    const named = FILE_COMMENT.exec(code.split('\n')[0]);
    blocks.push({ page, line, code, path: named?.[1] });
  }
  return blocks;
}

/**
 * A snippet as a module: its imports first, then the rest inside an async function, written on the
 * same lines so that a message's line is the snippet's.
 */
function asModule(code: string): string {
  const source = ts.createSourceFile('snippet.ts', code, ts.ScriptTarget.ES2022, true);
  const imports = source.statements.filter(ts.isImportDeclaration);
  const end = imports.length ? imports[imports.length - 1].end : 0;
  return `${code.slice(0, end)} export async function snippet(): Promise<void> {${code.slice(end)}\n}\n`;
}

const CONFIG = (() => {
  const file = join(ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(file, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, file);
  return { ...parsed.options, noEmit: true, incremental: false };
})();

/** Files read once for every page: the libraries and the repository's own sources. */
const sourceCache = new Map<string, ts.SourceFile | undefined>();

/** Where each block is compiled: its path, or a name of its own beside its page. */
function fileNameOf(block: Block, index: number): string {
  if (block.path) return resolve(ROOT, block.path);
  return join(ROOT, dirname(block.page), `${block.page.replace(/\W/g, '_')}.${index}.snippet.ts`);
}

/** What is wrong with the TypeScript of these blocks (of one page), one line a problem. */
export function compileProblems(blocks: Block[]): string[] {
  if (!blocks.length) return [];
  const problems: string[] = [];
  const files = new Map<string, { block: Block; text: string }>();
  blocks.forEach((block, index) => {
    const name = fileNameOf(block, index);
    if (files.has(name)) {
      problems.push(`${block.page}:${block.line}: ${block.path} is shown twice on the page`);
    }
    files.set(name, { block, text: block.path ? block.code : asModule(block.code) });
  });

  const host = ts.createCompilerHost(CONFIG, true);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.fileExists = (name) => files.has(resolve(name)) || fileExists(name);
  host.readFile = (name) => files.get(resolve(name))?.text ?? readFile(name);
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (name) =>
    [...files.keys()].some((file) => file.startsWith(resolve(name) + sep)) ||
    (directoryExists?.(name) ?? true);
  host.getSourceFile = (name, languageVersion) => {
    const own = files.get(resolve(name));
    if (own) return ts.createSourceFile(name, own.text, languageVersion, true);
    if (!sourceCache.has(name)) {
      const text = readFile(name);
      sourceCache.set(
        name,
        text === undefined ? undefined : ts.createSourceFile(name, text, languageVersion, true),
      );
    }
    return sourceCache.get(name);
  };

  const program = ts.createProgram([...files.keys()], CONFIG, host);
  problems.push(...program.getOptionsDiagnostics().map((d) => `tsconfig: ${message(d)}`));
  for (const [name, { block }] of files) {
    const source = program.getSourceFile(name);
    if (!source) throw new Error(`${name} was not compiled`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    for (const diagnostic of diagnostics) {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      problems.push(`${block.page}:${block.line + line}: ${message(diagnostic)}`);
    }
  }
  return problems;
}

function message(diagnostic: ts.Diagnostic): string {
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
}

const byPage = PAGES.map((page) => {
  const markdown = readFileSync(join(ROOT, page), 'utf8');
  return { page, blocks: blocksOf(page, markdown) };
}).filter(({ blocks }) => blocks.length > 0);

describe('the TypeScript of the docs compiles', () => {
  it.each(byPage.map(({ page, blocks }) => [page, blocks] as const))(
    '%s',
    (_page, blocks) => {
      expect(compileProblems(blocks)).toEqual([]);
    },
    60_000,
  );

  it('finds the blocks: files under their paths, snippets, indented ones', () => {
    const files = byPage.flatMap(({ blocks }) => blocks).filter((block) => block.path);
    expect(files.map(({ page, path }) => `${page} ${path}`)).toEqual(
      expect.arrayContaining([
        'docs/adding-a-tool.md src/tools.ts',
        'docs/configuration.md src/tools/translate/translate.module.ts',
      ]),
    );
    const markdown = [
      'Text.',
      '',
      '1. A step:',
      '',
      '   ```typescript',
      '   // src/x/y.ts: a file',
      '   export const x = 1;',
      '   ```',
      '',
      '```ts',
      'const y = 2;',
      '```',
      '```bash',
      'echo not compiled',
      '```',
    ].join('\n');
    expect(blocksOf('docs/x.md', markdown)).toEqual([
      {
        page: 'docs/x.md',
        line: 6,
        code: '// src/x/y.ts: a file\nexport const x = 1;\n',
        path: 'src/x/y.ts',
      },
      { page: 'docs/x.md', line: 11, code: 'const y = 2;\n', path: undefined },
    ]);
  });

  it('reports what does not compile: a wrong import, a wrong type, a missing name', () => {
    const page = 'docs/x.md';
    const file = [
      '// src/tools/x/x.module.ts',
      "import { ConfigKey } from '../../configuration/configuration.schema';",
      "export const key = ConfigKey.string({ default: '', description: 'x' });",
    ].join('\n');
    const snippet = ['const n: number = "one";', 'await missing();'].join('\n');
    const problems = compileProblems([
      { page, line: 10, code: file, path: 'src/tools/x/x.module.ts' },
      { page, line: 20, code: snippet },
    ]);
    expect(problems).toEqual([
      expect.stringMatching(/^docs\/x\.md:11: .*has no exported member .*'ConfigKey'/),
      "docs/x.md:20: Type 'string' is not assignable to type 'number'.",
      "docs/x.md:21: Cannot find name 'missing'.",
    ]);
  });

  it("compiles a page's files beside each other, and a snippet's imports and await", () => {
    const page = 'docs/x.md';
    const problems = compileProblems([
      {
        page,
        line: 1,
        path: 'src/tools/x/x.service.ts',
        code: '// src/tools/x/x.service.ts\nexport const answer = (): Promise<number> => Promise.resolve(42);\n',
      },
      {
        page,
        line: 5,
        path: 'src/tools/x/x.module.ts',
        code: "// src/tools/x/x.module.ts\nimport { answer } from './x.service';\nexport const twice = async () => 2 * (await answer());\n",
      },
      {
        page,
        line: 9,
        code: "import { join } from 'node:path';\nconst where: string = join('a', 'b');\nawait Promise.resolve(where);\n",
      },
    ]);
    expect(problems).toEqual([]);
  });

  it('names paths inside the repository only', () => {
    for (const block of byPage.flatMap(({ blocks }) => blocks)) {
      if (!block.path) continue;
      const where = relative(ROOT, resolve(ROOT, block.path));
      expect(where.startsWith(`..${sep}`) || where === '..').toBe(false);
    }
  });
});
