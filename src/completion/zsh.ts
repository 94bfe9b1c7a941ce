/**
 * The zsh completion script: the walk of the bash script (bashCore) under KSH_ARRAYS, with zsh's own ways to offer
 * what it finds — compadd for words, _files for files (after `compset -P '@'` for the JSON options' @file form). zsh
 * keeps "@pa" one word (no COMP_WORDBREAKS), so the walk sees it whole. bashcompinit is not used: its compgen ignores
 * the word given to it, which broke `@file` and made values fall back to files.
 */
import { bashCore } from './bash.js';
import type { CompletionModel } from './model.js';

export function zshScript(model: CompletionModel): string {
  return `#compdef textgen
# zsh completion for textgen. Install: textgen completion zsh > "\${fpath[1]}/_textgen"
# or add to ~/.zshrc (after compinit): source <(textgen completion zsh)

${bashCore(model, '_textgen_walk')}
# Words to offer: all of them; compadd keeps those that fit what is typed.
_textgen_reply() {
  COMPREPLY=( \${=1} )
}

_textgen_files() {
  _textgen_want_files=1
  _textgen_files_prefix="$2"
}

_textgen_walk_ksh() {
  setopt localoptions ksharrays
  _textgen_walk
}

_textgen() {
  local -a COMP_WORDS COMPREPLY
  local COMP_CWORD _textgen_want_files="" _textgen_files_prefix=""
  COMP_WORDS=( "\${words[@]}" )
  (( COMP_CWORD = CURRENT - 1 ))
  _textgen_walk_ksh
  if [[ -n $_textgen_want_files ]]; then
    [[ -n $_textgen_files_prefix ]] && compset -P '@'
    _files
    return
  fi
  (( \${#COMPREPLY} )) && compadd -- "\${COMPREPLY[@]}" && return 0
  _default
}

if [[ "\${funcstack[1]}" == _textgen ]]; then
  # Autoloaded from $fpath on the first TAB: this file is the function's body.
  _textgen "$@"
else
  (( \${+functions[compdef]} )) || { autoload -U compinit && compinit -C; }
  compdef _textgen textgen
fi
`;
}
