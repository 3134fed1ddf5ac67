import { TOOL_MODULES } from '../../src/tools';
import { declaredToolNames } from '../../src/tools/tool.decorator';

/**
 * The names of the tools src/tools.ts registers, in its order: what a test compares the served
 * list with when it means "every registered tool" (a team's own tools included), not the tools
 * this repository ships.
 */
export function registeredToolNames(): string[] {
  return declaredToolNames(TOOL_MODULES);
}
