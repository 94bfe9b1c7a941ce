/** The completion script for one shell, generated from the CLI's own command specs and global options. */
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { buildCompletionModel, type CompletionModel } from './model.js';
import { zshScript } from './zsh.js';

export type Shell = 'bash' | 'zsh' | 'fish';

export async function loadCompletionModel(): Promise<CompletionModel> {
  const [{ COMMAND_SPECS }, { GLOBAL_OPTION_SPECS }] = await Promise.all([
    import('../../commands/index.js'),
    import('../global-options.js'),
  ]);
  return buildCompletionModel([...COMMAND_SPECS], [...GLOBAL_OPTION_SPECS], {
    deployment: 'Generate text with a deployment',
    batch: 'Work with batch output files',
  });
}

export function completionScript(shell: Shell, model: CompletionModel): string {
  if (shell === 'bash') return bashScript(model);
  if (shell === 'zsh') return zshScript(model);
  return fishScript(model);
}
