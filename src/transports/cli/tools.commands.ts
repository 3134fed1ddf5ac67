import { Command } from 'commander';
import { wholeNumber } from './cli.options';
import { line, out } from './cli.output';
import { formatted, layoutOf, planNewTool, ToolUsageError, writeFiles } from './tool-generator';
import { NewTool, specFileOf } from './tool-templates';

const NEW_HELP = `
Run at the root of a checkout (a developer's command: it needs the dev dependencies, for Prettier).
It writes, formatted by the project's Prettier, and changes nothing else:
  src/tools/<name>/<name>.tool.ts   the tool in one file (defineTool): its input and output
                                    classes, its definition and its handler (it counts words: make
                                    it the tool it is named for)
  test/tools/<name>.e2e-spec.ts     its e2e spec: REST, a bad input, discovery, credits, and
                                    MCP with the clients of both eras
  src/tools.ts                      its module added to TOOL_MODULES: every surface serves it
\`npm run lint\` and the new spec pass as written; run the spec with
  npx jest test/tools/<name>.e2e-spec.ts --selectProjects e2e
In a project of your own that depends on the package (npx tool-invocation-service tools new <name>):
  src/tools/<name>.tool.ts          the tool, importing defineTool from the package
  test/<name>.e2e-spec.ts           its spec, on the package's test kit (tool-invocation-service/testing)
Exit codes: 0 written, 1 failed (nothing written), 2 bad usage (nothing written).`;

interface NewOptions {
  async?: boolean;
  cost: number;
  timeoutMs: number;
}

/**
 * `tools new <name>`: a developer's command on the checkout in the working directory. It needs
 * neither the store nor the application: it reads and writes files.
 */
export function addToolCommands(program: Command, existing: readonly string[]): void {
  const tools = program
    .command('tools')
    .description("Write a new tool into this checkout (developers' commands)");

  tools
    .command('new <name>')
    .description('Write a new tool in one file, its line in src/tools.ts and its e2e spec')
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
    .action(async (name: string, opts: NewOptions, command: Command) => {
      const root = process.cwd();
      let files;
      let tool: NewTool;
      try {
        const layout = layoutOf(root);
        tool = {
          name,
          layout,
          async: Boolean(opts.async),
          cost: opts.cost,
          timeoutMs: opts.timeoutMs,
        };
        files = planNewTool(root, tool, existing);
      } catch (error) {
        if (!(error instanceof ToolUsageError)) throw error;
        // Commander's own way out: its message on stderr, exit 2 (cli.ts's runCli).
        return command.error(`error: ${error.message}`, { exitCode: 2 });
      }
      writeFiles(root, await formatted(root, files));
      for (const file of files) {
        out(file.created ? line`Created ${file.path}` : line`Updated ${file.path} (TOOL_MODULES)`);
      }
      const spec = specFileOf(tool);
      out(
        tool.layout === 'checkout'
          ? line`Next: npx jest ${spec} --selectProjects e2e`
          : line`Next: npx jest ${spec}`,
      );
    });
}
