import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';
import { type Block, blocksOf, PAGES } from '../support/doc-blocks';
import { typeCheck } from '../support/typescript';

/**
 * The TypeScript of the README and the docs compiles, against the repository as it is: a reader
 * who copies a block gets code that builds. The conventions (docs/development.md#code-in-the-docs):
 *
 * - a block whose first line is a comment naming a `.ts` path (`// src/tools/forecast/forecast.module.ts`)
 *   is that file of the repository: it is compiled at that path, so its imports resolve as they
 *   would there, and the other file blocks of its page are beside it (a page may show a folder);
 *   a path that exists stands for that file, as the page shows it;
 * - any other block is a snippet: a module of its own beside its page, its statements run inside
 *   an async function (so `await` and a few lines of client code compile), its imports kept above;
 * - a block preceded by `<!-- compiled by test/<spec>.ts -->` needs files no page holds (types
 *   generated from the served document): that spec compiles it, and this one checks it does.
 *
 * Each page is one program with the project's tsconfig.json: type errors, unknown imports and
 * missing names are all reported, with the page, the block's line and the message.
 */
const ROOT = resolve(__dirname, '../..');

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

/** Where each block is compiled: its path, or a name of its own beside its page. */
function fileNameOf(block: Block, index: number): string {
  if (block.path) return resolve(ROOT, block.path);
  return join(ROOT, dirname(block.page), `${block.page.replace(/\W/g, '_')}.${index}.snippet.ts`);
}

/** What is wrong with the TypeScript of these blocks (of one page), one line a problem. */
export function compileProblems(blocks: Block[]): string[] {
  const problems: string[] = [];
  const files = new Map<string, string>();
  const blockOf = new Map<string, Block>();
  blocks.forEach((block, index) => {
    const name = fileNameOf(block, index);
    if (files.has(name)) {
      problems.push(`${block.page}:${block.line}: ${block.path} is shown twice on the page`);
    }
    files.set(name, block.path ? block.code : asModule(block.code));
    blockOf.set(name, block);
  });
  if (!files.size) return problems;
  for (const { file, line, message } of typeCheck(files)) {
    const block = blockOf.get(file);
    problems.push(block ? `${block.page}:${block.line + line}: ${message}` : `${file}: ${message}`);
  }
  return problems;
}

const byPage = PAGES.map((page) => {
  const markdown = readFileSync(join(ROOT, page), 'utf8');
  return { page, blocks: blocksOf(page, markdown) };
}).filter(({ blocks }) => blocks.length > 0);

describe('the TypeScript of the docs compiles', () => {
  it.each(byPage.map(({ page, blocks }) => [page, blocks] as const))(
    '%s',
    (_page, blocks) => {
      expect(compileProblems(blocks.filter((block) => !block.compiledBy))).toEqual([]);
    },
    60_000,
  );

  it('leaves a block to the spec its comment names only when that spec reads its page', () => {
    const elsewhere = byPage.flatMap(({ blocks }) => blocks).filter((block) => block.compiledBy);
    for (const { page, line, compiledBy } of elsewhere) {
      const spec = join(ROOT, compiledBy as string);
      const reads = existsSync(spec) && readFileSync(spec, 'utf8').includes(`'${page}'`);
      expect({ page, line, compiledBy, reads }).toEqual({ page, line, compiledBy, reads: true });
    }
  });

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
      '<!-- compiled by test/z.e2e-spec.ts -->',
      '```ts',
      'const z = 3;',
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
      {
        page: 'docs/x.md',
        line: 15,
        code: 'const z = 3;\n',
        path: undefined,
        compiledBy: 'test/z.e2e-spec.ts',
      },
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
