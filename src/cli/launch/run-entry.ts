// dist/run.cjs (scripts/bundle.mjs): everything a chosen command runs.
import type { Selection } from '../selection.js';
import { COMMAND_SPECS } from '../commands.js';
import { commandKey } from '../../define-command.js';
import { GLOBAL_OPTION_SPECS } from '../../global-options.js';
import { quickParse } from '../quick-parse.js';

export { executeCommand } from '../execute.js';
export { oneOffRun } from '../../contract/code-cache-coverage.js';

/** The command line of the command `key` names, parsed without commander, or undefined: commander's turn (./launch.ts). */
export function quickSelection(argv: readonly string[], key: string): Selection | undefined {
  const spec = COMMAND_SPECS.find((s) => commandKey(s) === key);
  return spec === undefined ? undefined : quickParse(argv, spec, GLOBAL_OPTION_SPECS);
}
