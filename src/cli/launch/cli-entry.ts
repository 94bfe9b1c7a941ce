// dist/cli.cjs (scripts/bundle.mjs): the command line and help, built from the command specs; no handler.
export { parseCommandLine } from '../program.js';
export { helpCommandLines, helpPageKey } from '../help-text.js';
export { COMMAND_GROUPS, COMMAND_SPECS } from '../commands.js';
// For the launcher's routing table (scripts/bundle.mjs TEXTGEN_ROUTE).
export { GLOBAL_OPTION_SPECS } from '../../global-options.js';
