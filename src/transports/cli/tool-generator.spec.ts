import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { layoutOf, planNewTool, ToolUsageError, withToolLine, writeFiles } from './tool-generator';
import { toolClassPrefix } from '../../tools/index';
import { titleOf, toolSource } from './tool-templates';

const LIST = `import type { Type } from '@nestjs/common';
import { GreetModule } from './tools/greet/greet.module';

export const TOOL_MODULES: Type[] = [GreetModule];
`;

describe('tools new: src/tools.ts with a new line', () => {
  it('adds the import after the last one and the module last in the list', () => {
    expect(withToolLine(LIST, 'WordCountToolModule', './tools/word_count/word_count.tool')).toBe(
      `import type { Type } from '@nestjs/common';
import { GreetModule } from './tools/greet/greet.module';
import { WordCountToolModule } from './tools/word_count/word_count.tool';

export const TOOL_MODULES: Type[] = [GreetModule
,WordCountToolModule,
];
`,
    );
  });

  it('keeps a trailing comma, a comment and an empty list valid', () => {
    const cases: [string, string][] = [
      ['[\n  A,\n  B,\n]', '[\n  A,\n  B,\nX,\n]'],
      ['[A // the first\n]', '[A // the first\n,X,\n]'],
      ['[A /* the first */ ]', '[A /* the first */\n,X,\n]'],
      ['[]', '[\nX,\n]'],
    ];
    for (const [list, expected] of cases) {
      const source = `import { A } from './a';\nexport const TOOL_MODULES: Type[] = ${list};\n`;
      expect(withToolLine(source, 'X', './x')).toBe(
        `import { A } from './a';\nimport { X } from './x';\nexport const TOOL_MODULES: Type[] = ${expected};\n`,
      );
    }
  });

  it('refuses a file without TOOL_MODULES', () => {
    expect(() => withToolLine('export const TOOLS = [];\n', 'X', './x')).toThrow(/TOOL_MODULES/);
  });
});

/** A new tool of the checkout layout, and checkouts to plan it in. */
const tool = {
  name: 'word_count',
  layout: 'checkout',
  async: false,
  cost: 1,
  timeoutMs: 30_000,
} as const;
const checkout = (list = LIST) => {
  const root = mkdtempSync(join(tmpdir(), 'tis-tools-new-'));
  mkdirSync(join(root, 'src/tools/greet'), { recursive: true });
  writeFileSync(join(root, 'src/tools.ts'), list);
  return root;
};
const refusal = (root: string, name: string, existing: string[] = []) => {
  try {
    planNewTool(root, { ...tool, layout: layoutOf(root), name }, existing);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolUsageError);
    return (error as Error).message;
  }
  throw new Error(`'${name}' was not refused`);
};

describe('tools new: its checks', () => {
  it('plans the tool, its spec and src/tools.ts', () => {
    const files = planNewTool(checkout(), tool, ['greet']);
    expect(files.map((file) => [file.path, file.created])).toEqual([
      ['src/tools/word_count/word_count.tool.ts', true],
      ['test/tools/word_count.e2e-spec.ts', true],
      ['src/tools.ts', false],
    ]);
  });

  it('needs the root of a checkout, or of a project that depends on the package', () => {
    const root = mkdtempSync(join(tmpdir(), 'tis-tools-new-'));
    expect(() => layoutOf(root)).toThrow(
      /^no src\/tools\.ts and no dependency on tool-invocation-service/,
    );
    writeFileSync(join(root, 'package.json'), JSON.stringify({ devDependencies: { jest: '30' } }));
    expect(() => layoutOf(root)).toThrow(ToolUsageError);
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ devDependencies: { 'tool-invocation-service': 'file:x.tgz' } }),
    );
    expect(layoutOf(root)).toBe('package');
    expect(layoutOf(checkout())).toBe('checkout');
    writeFileSync(join(root, 'package.json'), '{"devDependencies": {');
    expect(() => layoutOf(root)).toThrow(/^package\.json is not JSON \(.*\): mend it first$/);
  });

  it("plans a team's project: the tool and its spec on the package, no list to change", () => {
    const root = mkdtempSync(join(tmpdir(), 'tis-tools-new-'));
    const files = planNewTool(root, { ...tool, layout: 'package' }, ['greet']);
    expect(files.map((file) => [file.path, file.created])).toEqual([
      ['src/tools/word_count.tool.ts', true],
      ['test/word_count.e2e-spec.ts', true],
    ]);
    expect(files[0].text).toContain("from 'tool-invocation-service';");
    expect(files[1].text).toContain(
      "import { startTestApp, type TestApp } from 'tool-invocation-service/testing';",
    );
    expect(files[1].text).toContain("from '../src/tools/word_count.tool';");
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ dependencies: { 'tool-invocation-service': '^1.0.0' } }),
    );
    mkdirSync(join(root, 'src/tools'), { recursive: true });
    writeFileSync(join(root, 'src/tools/word_count.tool.ts'), '');
    expect(refusal(root, 'word_count')).toMatch(/src\/tools\/word_count\.tool\.ts exists/);
  });

  it('refuses what is not a tool name', () => {
    const root = checkout();
    for (const name of ['Word', '1st', 'word-count', '_x', '', 'a'.repeat(65)]) {
      expect(refusal(root, name)).toMatch(/is not a tool's name/);
    }
  });

  it('refuses a name taken by a tool, a folder, a spec or a line of src/tools.ts', () => {
    const root = checkout(LIST.replace('[GreetModule]', '[GreetModule, WordCountToolModule]'));
    expect(refusal(root, 'config_get', ['greet', 'config_get'])).toMatch(/named 'config_get'/);
    expect(refusal(root, 'greet')).toMatch(/src\/tools\/greet\/ exists/);
    expect(refusal(root, 'word_count')).toMatch(/src\/tools\.ts lists 'word_count'/);
    mkdirSync(join(root, 'test/tools'), { recursive: true });
    writeFileSync(join(root, 'test/tools/other.e2e-spec.ts'), '');
    expect(refusal(root, 'other')).toMatch(/test\/tools\/other\.e2e-spec\.ts exists/);
    writeFileSync(join(root, 'src/tools/index.ts'), '');
    expect(refusal(root, 'index')).toMatch(/src\/tools\/index\.ts exists/);
  });
});

const PRETTIER = require.resolve('prettier/bin/prettier.cjs');

describe('tools new: what it writes', () => {
  it('lists one tool after another, formatted as the project Prettier configuration says', () => {
    const root = mkdtempSync(join(tmpdir(), 'tis-tools-new-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src/tools.ts'), LIST);
    copyFileSync(join(__dirname, '../../../.prettierrc'), join(root, '.prettierrc'));
    for (const name of ['word_count', 'a_tool_with_a_name_long_enough_to_wrap_the_list']) {
      const files = planNewTool(
        root,
        { name, layout: 'checkout', async: false, cost: 1, timeoutMs: 1 },
        [],
      );
      writeFiles(root, files);
      // As formatted() would: Prettier's own entry imports its ES modules, which Jest cannot.
      execFileSync(process.execPath, [PRETTIER, '--write', 'src/tools.ts'], { cwd: root });
    }
    expect(readFileSync(join(root, 'src/tools.ts'), 'utf8')).toBe(
      `import type { Type } from '@nestjs/common';
import { GreetModule } from './tools/greet/greet.module';
import { WordCountToolModule } from './tools/word_count/word_count.tool';
import { AToolWithANameLongEnoughToWrapTheListToolModule } from './tools/a_tool_with_a_name_long_enough_to_wrap_the_list/a_tool_with_a_name_long_enough_to_wrap_the_list.tool';

export const TOOL_MODULES: Type[] = [
  GreetModule,
  WordCountToolModule,
  AToolWithANameLongEnoughToWrapTheListToolModule,
];
`,
    );
  });

  it('leaves the project as it was when a file cannot be written: created ones gone, rewritten ones back', () => {
    const root = mkdtempSync(join(tmpdir(), 'tis-tools-new-'));
    writeFileSync(join(root, 'package.json'), '{"name": "x"}\n');
    mkdirSync(join(root, 'test'));
    writeFileSync(join(root, 'test/x.e2e-spec.ts'), 'mine\n');
    expect(() =>
      writeFiles(root, [
        { path: 'package.json', text: '{"name": "y"}\n', created: false, change: 'scripts: test' },
        { path: 'src/tools/x.tool.ts', text: 'tool', created: true },
        { path: 'test/x.e2e-spec.ts', text: 'spec', created: true },
      ]),
    ).toThrow(/EEXIST/);
    expect(readFileSync(join(root, 'package.json'), 'utf8')).toBe('{"name": "x"}\n');
    expect(readFileSync(join(root, 'test/x.e2e-spec.ts'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(root, 'src'))).toBe(false);
  });

  it('names its classes as defineTool names its module', () => {
    expect(toolClassPrefix('word_count')).toBe('WordCount');
    expect(titleOf('word_count')).toBe('Word count');
    const source = toolSource({
      name: 'x2_y',
      layout: 'checkout',
      async: true,
      cost: 5,
      timeoutMs: 120_000,
    });
    expect(source).toContain('export const X2YToolModule = defineTool({');
    expect(source).toContain('cost: 5,');
    expect(source).toContain('timeoutMs: 120_000,');
    expect(source).toContain("async: 'allowed',");
  });
});
