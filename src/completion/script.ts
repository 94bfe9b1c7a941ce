/** The completion script for one shell, generated from the CLI's own command specs and global options. */
import type { CommandSpec } from '../command.js';
import { GLOBAL_OPTION_SPECS } from '../global-options.js';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { buildCompletionModel, type CompletionModel } from './model.js';
import { zshScript } from './zsh.js';

export type Shell = 'bash' | 'zsh' | 'fish';

/** What the scripts complete: the commands given (every command's spec, in help order) and the global options. */
export function completionModel(specs: readonly CommandSpec[]): CompletionModel {
  return buildCompletionModel([...specs], [...GLOBAL_OPTION_SPECS], {
    deployment: 'Generate text with a deployment',
    batch: 'Work with batch output files',
  });
}

export function completionScript(shell: Shell, model: CompletionModel): string {
  if (shell === 'bash') return bashScript(model);
  if (shell === 'zsh') return zshScript(model);
  return fishScript(model);
}
