/**
 * The bash completion script: `complete -F` with compgen over the words each command path accepts.
 * COMP_WORDS is split by bash at its COMP_WORDBREAKS, which hold "=" and "@": `--profile=x` arrives as three words,
 * `--parameters @pa` as `@` `pa` — and readline then replaces only `pa`, so a file after "@" is offered without it.
 * The walk (bashCore) is shared with zsh (zsh.ts), which gives its own _textgen_reply and _textgen_files.
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
  const choiceArms = new Map<string, string[]>();
  for (const f of flags) {
    if (f.value === undefined || f.value === 'free') continue;
    if (f.value === 'choice') {
      const words = (f.choices ?? []).join(' ');
      choiceArms.set(words, [...(choiceArms.get(words) ?? []), ...f.names]);
      continue;
    }
    byKind.set(f.value, [...(byKind.get(f.value) ?? []), ...f.names]);
  }
  const arms: string[] = [];
  for (const [kind, flagNames] of byKind) {
    const pattern = [...new Set(flagNames)].join('|');
    if (kind === 'profile')
      // Two expansions, not one "--config $config": zsh would pass that as a single word.
      arms.push(
        `    ${pattern}) _textgen_reply "$(textgen \${config:+--config} \${config:+"$config"} ${PROFILES_COMMAND} 2>/dev/null)" ;;`,
      );
    else if (kind === 'file') arms.push(`    ${pattern}) _textgen_files "$cur" "" ;;`);
    else arms.push(`    ${pattern}) _textgen_reply '${valueWords(kind as 'output' | 'provider').join(' ')}' ;;`);
  }
  for (const [words, flagNames] of choiceArms)
    arms.push(`    ${[...new Set(flagNames)].join('|')}) _textgen_reply '${words}' ;;`);
  return arms.join('\n');
}

/**
 * The tables and the walk, as shell functions bash and zsh both run (zsh with KSH_ARRAYS, so COMP_WORDS counts from
 * 0 as in bash). `entry` is the walk's name. It ends in one call: `_textgen_reply WORDS` (words to offer, filtered
 * by what is typed) or `_textgen_files WORD PREFIX` (files matching WORD, offered with PREFIX before them).
 */
export function bashCore(model: CompletionModel, entry: string): string {
  const nodes = allNodes(model);
  const leafFlags = nodes.flatMap((n) => n.flags);
  const globalValueFlags = names(model.globalFlags.filter((f) => f.value !== undefined));
  return `_textgen_subcommands() {
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
  # One line: the callers match " $w " in it, so the command's first flag must follow a space, not a line break.
  printf '%s ' '${globalValueFlags.join(' ')}'
  case "$1" in
${caseArms(nodes, (n) => names(n.flags.filter((f) => f.value !== undefined)))}
  esac
}

_textgen_arg_values() {
  case "$1" in
${caseArms(nodes, (n) => n.argValues)}
  esac
}

${entry}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" cmd="" config="" at="" i w
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ $cur == "=" ]]; then cur=""
  elif [[ $prev == "=" ]] && (( COMP_CWORD > 1 )); then prev="\${COMP_WORDS[COMP_CWORD-2]}"
  fi
  # "@" split off by COMP_WORDBREAKS: the file name is the word after it (or nothing yet), and "@" stays on the line.
  if [[ $cur == "@" ]]; then at=1; cur=""
  elif [[ $prev == "@" ]]; then at=1
  fi
  COMPREPLY=()

  # Walk the words before the cursor: command words deepen the path ($cmd; not $path, which zsh ties to $PATH),
  # flags and their values are skipped.
  for (( i = 1; i < COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    if [[ $w == "@" ]]; then (( i++ )); continue; fi
    if [[ $w == -* ]]; then
      if [[ " $(_textgen_value_flags "$cmd") " == *" $w "* ]]; then
        (( i++ ))
        [[ \${COMP_WORDS[i]} == "=" ]] && (( i++ ))
        [[ \${COMP_WORDS[i]} == "@" ]] && (( i++ ))
        (( i < COMP_CWORD )) && [[ $w == --config ]] && config="\${COMP_WORDS[i]}"
      fi
      continue
    fi
    if [[ " $(_textgen_subcommands "$cmd") " == *" $w "* ]]; then cmd="\${cmd:+$cmd }$w"; fi
  done

  if [[ -n $at ]]; then _textgen_files "$cur" "@"; return 0; fi
  if [[ $cur == @* ]]; then _textgen_files "\${cur#@}" "@"; return 0; fi
  if [[ $prev == -* && " $(_textgen_value_flags "$cmd") " == *" $prev "* ]]; then
    case "$prev" in
${valueArms([...model.globalFlags, ...leafFlags])}
    esac
    return 0
  fi
  if [[ $cur == -* ]]; then
    _textgen_reply "$(_textgen_flags "$cmd") ${names(model.globalFlags).join(' ')} --help $([[ -z $cmd ]] && echo --version)"
    return 0
  fi
  _textgen_reply "$(_textgen_subcommands "$cmd") $(_textgen_arg_values "$cmd")"
  return 0
}
`;
}

export function bashScript(model: CompletionModel): string {
  return `# bash completion for textgen. Install: textgen completion bash > ~/.local/share/bash-completion/completions/textgen
# or add to ~/.bashrc: source <(textgen completion bash)

${bashCore(model, '_textgen')}
_textgen_reply() {
  COMPREPLY=($(compgen -W "$1" -- "$cur"))
}

# Files matching $1, offered with $2 before each. After "@" readline replaces the word from the "@" on, though
# COMP_WORDS split it off: the candidates carry it, and -o filenames is left out because it would quote it (\\@).
_textgen_files() {
  local IFS=$'\\n' prefix="$2" f
  COMPREPLY=($(compgen -f -- "$1"))
  if [[ -z $prefix ]]; then
    type compopt >/dev/null 2>&1 && compopt -o filenames 2>/dev/null
    return 0
  fi
  for i in "\${!COMPREPLY[@]}"; do
    f="\${COMPREPLY[i]}"
    [[ -d $f ]] && f="$f/"
    COMPREPLY[i]="$prefix$f"
  done
  # A directory is completed into, not past.
  [[ \${#COMPREPLY[@]} == 1 && \${COMPREPLY[0]} == */ ]] && type compopt >/dev/null 2>&1 && compopt -o nospace 2>/dev/null
  return 0
}

complete -o default -F _textgen textgen
`;
}
