/**
 * The bash completion script: `complete -F` with compgen over the words each command path accepts.
 * COMP_WORDS is split at "=" by bash (COMP_WORDBREAKS), so `--profile=x` arrives as three words; the walk allows it.
 */
import {
  allNodes,
  PROFILES_COMMAND,
  valueWords,
  type CompletionFlag,
  type CompletionModel,
  type CompletionNode,
} from './model.js';

const key = (node: CompletionNode) => node.path.join(' ');
const names = (flags: readonly CompletionFlag[]) => flags.flatMap((f) => f.names);

function caseArms(nodes: readonly CompletionNode[], words: (n: CompletionNode) => string[]): string {
  return nodes
    .map((n) => ({ n, w: words(n) }))
    .filter(({ w }) => w.length > 0)
    .map(({ n, w }) => `    '${key(n)}') echo '${w.join(' ')}' ;;`)
    .join('\n');
}

function valueArms(flags: readonly CompletionFlag[]): string {
  const byKind = new Map<string, string[]>();
  for (const f of flags) {
    if (f.value === undefined || f.value === 'free') continue;
    byKind.set(f.value, [...(byKind.get(f.value) ?? []), ...f.names]);
  }
  const arms: string[] = [];
  for (const [kind, flagNames] of byKind) {
    const pattern = [...new Set(flagNames)].join('|');
    if (kind === 'profile')
      arms.push(
        `    ${pattern}) _textgen_reply "$(textgen \${config:+--config "$config"} ${PROFILES_COMMAND} 2>/dev/null)" ;;`,
      );
    else if (kind === 'file') arms.push(`    ${pattern}) _textgen_files "$cur" ;;`);
    else arms.push(`    ${pattern}) _textgen_reply '${valueWords(kind as 'output' | 'provider').join(' ')}' ;;`);
  }
  return arms.join('\n');
}

export function bashScript(model: CompletionModel): string {
  const nodes = allNodes(model);
  const leafFlags = nodes.flatMap((n) => n.flags);
  const globalValueFlags = names(model.globalFlags.filter((f) => f.value !== undefined));
  return `# bash completion for textgen. Install: textgen completion bash > ~/.local/share/bash-completion/completions/textgen
# or add to ~/.bashrc: source <(textgen completion bash)

_textgen_subcommands() {
  case "$1" in
${caseArms(nodes, (n) => n.children.map((c) => c.path[c.path.length - 1] as string))}
  esac
}

_textgen_flags() {
  case "$1" in
${caseArms(nodes, (n) => names(n.flags))}
  esac
}

_textgen_value_flags() {
  echo '${globalValueFlags.join(' ')}'
  case "$1" in
${caseArms(nodes, (n) => names(n.flags.filter((f) => f.value !== undefined)))}
  esac
}

_textgen_arg_values() {
  case "$1" in
${caseArms(nodes, (n) => n.argValues)}
  esac
}

_textgen_reply() {
  COMPREPLY=($(compgen -W "$1" -- "$cur"))
}

# Files for a flag value, or after "@" for the JSON options' @file form.
_textgen_files() {
  local IFS=$'\\n' prefix="" word="$1"
  if [[ $word == @* ]]; then prefix="@"; word="\${word#@}"; fi
  COMPREPLY=($(compgen -f -- "$word"))
  if [[ -n $prefix ]]; then COMPREPLY=("\${COMPREPLY[@]/#/@}"); fi
  type compopt >/dev/null 2>&1 && compopt -o filenames 2>/dev/null
  return 0
}

_textgen() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" path="" config="" i w
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ $cur == "=" ]]; then cur=""
  elif [[ $prev == "=" ]] && (( COMP_CWORD > 1 )); then prev="\${COMP_WORDS[COMP_CWORD-2]}"
  fi
  COMPREPLY=()

  # Walk the words before the cursor: command words deepen the path, flags and their values are skipped.
  for (( i = 1; i < COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    if [[ $w == -* ]]; then
      if [[ " $(_textgen_value_flags "$path") " == *" $w "* ]]; then
        (( i++ ))
        [[ \${COMP_WORDS[i]} == "=" ]] && (( i++ ))
        (( i < COMP_CWORD )) && [[ $w == --config ]] && config="\${COMP_WORDS[i]}"
      fi
      continue
    fi
    if [[ " $(_textgen_subcommands "$path") " == *" $w "* ]]; then path="\${path:+$path }$w"; fi
  done

  if [[ $cur == @* ]]; then _textgen_files "$cur"; return 0; fi
  if [[ $prev == -* && " $(_textgen_value_flags "$path") " == *" $prev "* ]]; then
    case "$prev" in
${valueArms([...model.globalFlags, ...leafFlags])}
    esac
    return 0
  fi
  if [[ $cur == -* ]]; then
    _textgen_reply "$(_textgen_flags "$path") ${names(model.globalFlags).join(' ')} --help $([[ -z $path ]] && echo --version)"
    return 0
  fi
  _textgen_reply "$(_textgen_subcommands "$path") $(_textgen_arg_values "$path")"
  return 0
}

complete -o default -F _textgen textgen
`;
}
