/**
 * The zsh completion script: the bash script run through zsh's bashcompinit, so the two shells share one
 * tested implementation instead of a second hand-kept _arguments tree.
 */
import { bashScript } from './bash.js';
import type { CompletionModel } from './model.js';

export function zshScript(model: CompletionModel): string {
  return `#compdef textgen
# zsh completion for textgen. Install: textgen completion zsh > "\${fpath[1]}/_textgen"
# or add to ~/.zshrc: source <(textgen completion zsh)
autoload -U +X compinit && compinit -C
autoload -U +X bashcompinit && bashcompinit

${bashScript(model)}`;
}
