import { existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  moduleNameOf,
  NewTool,
  PACKAGE,
  specFileOf,
  specSource,
  toolFileOf,
  ToolLayout,
  toolSource,
} from './tool-templates';

/** The tools' list of a checkout, from its root. */
export const TOOLS_LIST_FILE = 'src/tools.ts';

/** A tool's name: its path segment, its folder, its scope's last part. */
const TOOL_NAME = /^[a-z][a-z0-9_]*$/;

/** What some MCP clients' models take as a function's name, at most: a tool's, at most. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** A mistake of the command's user (exit 2): nothing was written. */
export class ToolUsageError extends Error {}

/** A file `tools new` or `tools init` writes: its path from the root of the project, its text. */
export interface PlannedFile {
  path: string;
  text: string;
  /** A new file (refused if one appears meanwhile), or one rewritten (src/tools.ts, package.json). */
  created: boolean;
  /** What a rewrite changes, for the output: `TOOL_MODULES`, `scripts: test`. */
  change?: string;
}

/**
 * src/tools.ts with the tool's import after the last import and its module last in
 * TOOL_MODULES: unformatted (Prettier lays the list out).
 */
export function withToolLine(source: string, moduleName: string, importPath: string): string {
  const list = /(export const TOOL_MODULES\b[^=]*=\s*\[)([^\]]*)\]/.exec(source);
  if (!list) {
    throw new Error(`${TOOLS_LIST_FILE} has no 'export const TOOL_MODULES = [...]' to add it to`);
  }
  const inside = list[2].replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  const comma = inside.trim() === '' || inside.trim().endsWith(',') ? '' : ',';
  const end = list.index + list[0].length - 1;
  // On a line of its own: after the last entry, or after the comment that ends its line.
  const head = source.slice(0, end).trimEnd();
  const listed = `${head}\n${comma}${moduleName},\n${source.slice(end)}`;
  const imports = [...listed.matchAll(/^import\b[^;]*;/gm)];
  const last = imports[imports.length - 1];
  const at = last ? last.index + last[0].length : 0;
  const line = `import { ${moduleName} } from '${importPath}';`;
  return last ? `${listed.slice(0, at)}\n${line}${listed.slice(at)}` : `${line}\n${listed}`;
}

/** A package.json's dependencies; one that is not JSON is the user's to mend (exit 2). */
function parsedManifest(path: string): Record<string, Record<string, string> | undefined> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, string>>;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new ToolUsageError(`package.json is not JSON (${error.message}): mend it first`);
  }
}

/**
 * Where `root` takes a new tool: a checkout of the service (its src/tools.ts), or a project whose
 * package.json depends on the package; else a usage error.
 */
export function layoutOf(root: string): ToolLayout {
  if (existsSync(join(root, TOOLS_LIST_FILE))) return 'checkout';
  const manifest = join(root, 'package.json');
  if (existsSync(manifest)) {
    const { dependencies = {}, devDependencies = {} } = parsedManifest(manifest);
    if (PACKAGE in dependencies || PACKAGE in devDependencies) return 'package';
  }
  throw new ToolUsageError(
    `no ${TOOLS_LIST_FILE} and no dependency on ${PACKAGE} in ${root}: run \`tools new\` at the root of a checkout of the service, or of a project that depends on it`,
  );
}

/**
 * The files of a new tool in the project at `root`, checked first: the name is a tool's and none of
 * `existing` (the tools the CLI was built with), and neither its file, its spec nor (in a
 * checkout) its entry in src/tools.ts is there yet.
 */
export function planNewTool(
  root: string,
  tool: NewTool,
  existing: readonly string[],
): PlannedFile[] {
  const { name } = tool;
  if (!TOOL_NAME.test(name) || name.length > MAX_TOOL_NAME_LENGTH) {
    throw new ToolUsageError(
      `'${name}' is not a tool's name: [a-z][a-z0-9_]* (a lower-case letter first, then lower-case letters, digits and _), at most ${MAX_TOOL_NAME_LENGTH} characters`,
    );
  }
  const checkout = tool.layout === 'checkout';
  const list = checkout ? readFileSync(join(root, TOOLS_LIST_FILE), 'utf8') : '';
  const moduleName = moduleNameOf(name);
  const importPath = `./tools/${name}/${name}.tool`;
  const [toolFile, specFile] = [toolFileOf(tool), specFileOf(tool)];
  const taken = [
    existing.includes(name) && `a tool named '${name}' exists already`,
    existsSync(join(root, 'src/tools', name)) && `src/tools/${name}/ exists already`,
    existsSync(join(root, `src/tools/${name}.ts`)) && `src/tools/${name}.ts exists already`,
    existsSync(join(root, toolFile)) && `${toolFile} exists already`,
    existsSync(join(root, specFile)) && `${specFile} exists already`,
    (list.includes(`'./tools/${name}/`) || new RegExp(`\\b${moduleName}\\b`).test(list)) &&
      `${TOOLS_LIST_FILE} lists '${name}' already`,
  ].find(Boolean);
  if (taken) throw new ToolUsageError(`${taken}: choose another name`);
  return [
    { path: toolFile, text: toolSource(tool), created: true },
    { path: specFile, text: specSource(tool), created: true },
    ...(checkout
      ? [
          {
            path: TOOLS_LIST_FILE,
            text: withToolLine(list, moduleName, importPath),
            created: false,
            change: 'TOOL_MODULES',
          },
        ]
      : []),
  ];
}

type Prettier = typeof import('prettier');

/**
 * The project's own Prettier, if it has one (a checkout's dev dependencies have it; a team's
 * project may not): resolved from the project's root, not from where the CLI is installed.
 */
function projectPrettier(root: string): Prettier | undefined {
  const requireFromProject = createRequire(join(root, 'package.json'));
  let entry: string;
  try {
    entry = requireFromProject.resolve('prettier');
  } catch (error) {
    if ((error as { code?: string }).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  return requireFromProject(entry) as Prettier;
}

/** What Prettier formats of what is written: the code (package.json and tsconfig.json stay as laid out). */
const FORMATTED = /\.(ts|c?js)$/;

/**
 * The files formatted as the project's Prettier configuration says (`npm run format` in a
 * checkout); as they are, without Prettier in the project (`formatted: false`).
 */
export async function formatted(
  root: string,
  files: PlannedFile[],
): Promise<{ files: PlannedFile[]; formatted: boolean }> {
  const prettier = projectPrettier(root);
  if (!prettier) return { files, formatted: false };
  const format = async (file: PlannedFile) => {
    if (!FORMATTED.test(file.path)) return file;
    const filepath = join(root, file.path);
    const options = (await prettier.resolveConfig(filepath)) ?? {};
    return { ...file, text: await prettier.format(file.text, { ...options, filepath }) };
  };
  return { files: await Promise.all(files.map(format)), formatted: true };
}

/**
 * Writes the files; on a failure, removes those it created and puts back the text of those it
 * rewrote, so that the project is as it was.
 */
export function writeFiles(root: string, files: PlannedFile[]): void {
  const made: string[] = [];
  const rewritten: { path: string; text: string }[] = [];
  /** The first folder each file needed made: nothing but what this call wrote is in it. */
  const folders: string[] = [];
  try {
    for (const file of files) {
      const path = join(root, file.path);
      const folder = mkdirSync(dirname(path), { recursive: true });
      if (folder) folders.push(folder);
      if (!file.created) rewritten.push({ path, text: readFileSync(path, 'utf8') });
      writeFileSync(path, file.text, { flag: file.created ? 'wx' : 'w' });
      if (file.created) made.push(path);
    }
  } catch (error) {
    made.forEach((path) => unlinkSync(path));
    rewritten.forEach(({ path, text }) => writeFileSync(path, text));
    folders.reverse().forEach((folder) => rmSync(folder, { recursive: true, force: true }));
    throw error;
  }
}
