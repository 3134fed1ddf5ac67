import { TOOL_MODULES } from '../../src/tools';
import { ChecksumModule } from './checksum/checksum.module';
import { RepeatToolModule } from './repeat-text.tool';

/**
 * Registers the fixture tools (checksum, a module with a service and a configuration section;
 * repeat_text, a tool in one file) as a team's line in src/tools.ts would: it joins TOOL_MODULES, the
 * one list every root module, the CLI and the test app read. Loaded before anything reads the list:
 * by the fixture-tool jest project's setupFiles; in the processes its suites start, by the compiled
 * list of dist-fixture/ (test/fixture-tool/build.global-setup.ts), or `node -r` under ts-node.
 */
for (const tool of [ChecksumModule, RepeatToolModule]) {
  if (!TOOL_MODULES.includes(tool)) TOOL_MODULES.push(tool);
}
