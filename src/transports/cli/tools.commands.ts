import { Command } from 'commander';
import { wholeNumber } from './cli.options';
import { line, out } from './cli.output';
import { planProjectSetup } from './project-setup';
import {
  formatted,
  layoutOf,
  PlannedFile,
  planNewTool,
  ToolUsageError,
  writeFiles,
} from './tool-generator';
import { NewTool, PACKAGE, specFileOf } from './tool-templates';

const NEW_HELP = `
At the root of a checkout it writes, and changes nothing else:
  src/tools/<name>/<name>.tool.ts   the tool in one file (defineTool): its input and output
                                    classes, its definition and its handler (it counts words: make
                                    it the tool it is named for)
  test/tools/<name>.e2e-spec.ts     its e2e spec: REST, a bad input, discovery, credits, and
                                    MCP with the clients of both eras
  src/tools.ts                      its module added to TOOL_MODULES: every surface serves it
\`npm run lint\` and the new spec pass as written; run the spec with
  npx jest test/tools/<name>.e2e-spec.ts --selectProjects e2e
In a project of your own that depends on the package (npx ${PACKAGE} tools new <name>):
  src/tools/<name>.tool.ts          the tool, importing defineTool from the package
  test/<name>.e2e-spec.ts           its spec, on the package's test kit (${PACKAGE}/testing)
  and, when the project has no Jest configuration yet, what \`tools init\` writes.
The project's Prettier formats what it writes; without Prettier it is written as laid out here.
Exit codes: 0 written, 1 failed (nothing written), 2 bad usage (nothing written).`;

const INIT_HELP = `
In a project of your own that depends on the package, it writes what the specs of \`tools new\`
need to run with \`npx jest\`, and keeps what the project has of it already (it says which):
  jest.config.js     TypeScript through SWC (@swc/jest), jose made CommonJS (jest.config.cjs in a
                     "type": "module" project)
  tsconfig.json      decorators and their metadata, for type-checking only (noEmit)
  package.json       the scripts test (jest) and typecheck (tsc --noEmit), where it has none
Exit codes: 0 done, 1 failed (nothing written), 2 bad usage (nothing written).`;

interface NewOptions {
  async?: boolean;
  cost: number;
  timeoutMs: number;
}

/** What `plan` decided, or its usage mistake as Commander's own end: on stderr, exit 2. */
function planned<T>(command: Command, plan: () => T): T {
  try {
    return plan();
  } catch (error) {
    if (!(error instanceof ToolUsageError)) throw error;
    return command.error(`error: ${error.message}`, { exitCode: 2 });
  }
}

/** Writes the files, formatted by the project's Prettier if it has one, and names each. */
async function write(root: string, files: PlannedFile[]): Promise<boolean> {
  const result = await formatted(root, files);
  writeFiles(root, result.files);
  for (const file of result.files) {
    out(file.created ? line`Created ${file.path}` : line`Updated ${file.path} (${file.change})`);
  }
  return result.formatted;
}

const sayKept = (kept: string[]) =>
  kept.forEach((what) => out(line`Kept ${what} (the project's own)`));

/**
 * A new tool's files; in a team's project without a Jest configuration, what `tools init` writes
 * first (and what it keeps of the project's own).
 */
function planTool(root: string, name: string, opts: NewOptions, existing: readonly string[]) {
  const layout = layoutOf(root);
  const { cost, timeoutMs } = opts;
  const tool: NewTool = { name, layout, async: Boolean(opts.async), cost, timeoutMs };
  const files = planNewTool(root, tool, existing);
  const setup = layout === 'package' ? planProjectSetup(root) : undefined;
  if (!setup || setup.jestConfigured) return { tool, files, kept: [] };
  return { tool, files: [...setup.files, ...files], kept: setup.kept };
}

/** `tools new <name>`: plans everything, then writes it, or writes nothing. */
async function newTool(
  name: string,
  opts: NewOptions,
  command: Command,
  existing: readonly string[],
) {
  const root = process.cwd();
  const { tool, files, kept } = planned(command, () => planTool(root, name, opts, existing));
  const wasFormatted = await write(root, files);
  sayKept(kept);
  if (!wasFormatted) {
    out(
      line`Not formatted: no Prettier in this project (with it installed, tools new formats what it writes)`,
    );
  }
  const spec = specFileOf(tool);
  out(
    tool.layout === 'checkout'
      ? line`Next: npx jest ${spec} --selectProjects e2e`
      : line`Next: npx jest ${spec}`,
  );
}

/** `tools init`: in a team's project only, what it lacks; names what it keeps. */
async function initProject(command: Command) {
  const root = process.cwd();
  const setup = planned(command, () => {
    if (layoutOf(root) === 'checkout') {
      throw new ToolUsageError(
        `${root} is a checkout of the service, whose configuration is its own: \`tools init\` sets up a project that depends on ${PACKAGE}`,
      );
    }
    return planProjectSetup(root);
  });
  await write(root, setup.files);
  sayKept(setup.kept);
  out(line`Next: npx ${PACKAGE} tools new <name>`);
}

/**
 * `tools new <name>` and `tools init`: a developer's commands on the project in the working
 * directory. They need neither the store nor the application: they read and write files.
 */
export function addToolCommands(program: Command, existing: readonly string[]): void {
  const tools = program
    .command('tools')
    .description("Write a new tool, and set up a project for it (developers' commands)");

  tools
    .command('new <name>')
    .description(
      'Write a new tool in one file, its e2e spec and (in a checkout) its line in src/tools.ts',
    )
    .option(
      '--async',
      "it may run in the background (async: 'allowed'), its handler reporting progress and " +
        "stopping with the call's signal; without it, answered in the request (async: 'never')",
    )
    .option('--cost <n>', 'credits a call costs (a whole number >= 1)', wholeNumber(1), 1)
    .option(
      '--timeout-ms <n>',
      "the call's deadline in ms, then 504 (a whole number >= 1)",
      wholeNumber(1),
      30_000,
    )
    .addHelpText('after', NEW_HELP)
    .action((name: string, opts: NewOptions, command: Command) =>
      newTool(name, opts, command, existing),
    );

  tools
    .command('init')
    .description("Write what a project on the package needs to run its tools' specs with Jest")
    .addHelpText('after', INIT_HELP)
    .action((_opts: object, command: Command) => initProject(command));
}
