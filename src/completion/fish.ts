/**
 * The fish completion script: one `complete -c textgen` line per command word and flag, gated on the command path.
 * A flag's value: files (`-r -F`), profile names, the declared words of a closed set (`-x -a`), or nothing to offer
 * (`-x`); where the value may be `@FILE` (`<json|@file>`), files after the "@" (__textgen_at_files).
 */
import {
  allNodes,
  PROFILES_COMMAND,
  valueWords,
  type CompletionFlag,
  type CompletionModel,
  type CompletionNode,
} from './model.js';

/** fish single-quoted string: only \\ and ' are special. */
function quote(s: string): string {
  return `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? '';
}

function flagLine(flag: CompletionFlag, condition: string): string {
  const parts = ['complete -c textgen'];
  if (condition !== '') parts.push(`-n ${quote(condition)}`);
  for (const name of flag.names) {
    if (name.startsWith('--')) parts.push(`-l ${name.slice(2)}`);
    else parts.push(`-s ${name.slice(1)}`);
  }
  if (flag.value === 'file') parts.push('-r -F');
  else if (flag.value === 'profile') parts.push("-x -a '(__textgen_profiles)'");
  else if (flag.value === 'output' || flag.value === 'provider')
    parts.push(`-x -a ${quote(valueWords(flag.value).join(' '))}`);
  else if (flag.value === 'choice') parts.push(`-x -a ${quote((flag.choices ?? []).join(' '))}`);
  else if (flag.value === 'free') parts.push(flag.atFile ? "-x -a '(__textgen_at_files)'" : '-x');
  parts.push(`-d ${quote(firstLine(flag.description))}`);
  return parts.join(' ');
}

function switchArms(nodes: readonly CompletionNode[], words: (n: CompletionNode) => string[]): string {
  return nodes
    .map((n) => ({ n, w: words(n) }))
    .filter(({ w }) => w.length > 0)
    .map(({ n, w }) => `        case ${quote(n.path.join(' '))}\n            printf '%s\\n' ${w.map(quote).join(' ')}`)
    .join('\n');
}

export function fishScript(model: CompletionModel): string {
  const nodes = allNodes(model);
  const globalValueFlags = model.globalFlags.filter((f) => f.value !== undefined).flatMap((f) => f.names);
  const lines: string[] = [];
  for (const node of nodes) {
    const here = `__textgen_path_is ${node.path.join(' ')}`.trimEnd();
    for (const child of node.children) {
      lines.push(
        `complete -c textgen -f -n ${quote(here)} -a ${quote(child.path[child.path.length - 1] as string)} -d ${quote(firstLine(child.description))}`,
      );
    }
    if (node.argValues.length > 0)
      lines.push(`complete -c textgen -f -n ${quote(here)} -a ${quote(node.argValues.join(' '))}`);
    for (const flag of node.flags) lines.push(flagLine(flag, here));
  }
  for (const flag of model.globalFlags) lines.push(flagLine(flag, ''));
  return `# fish completion for textgen. Install: textgen completion fish > ~/.config/fish/completions/textgen.fish

function __textgen_subcommands
    switch "$argv"
${switchArms(nodes, (n) => n.children.map((c) => c.path[c.path.length - 1] as string))}
    end
end

function __textgen_value_flags
    printf '%s\\n' ${globalValueFlags.map(quote).join(' ')}
    switch "$argv"
${switchArms(nodes, (n) => n.flags.filter((f) => f.value !== undefined).flatMap((f) => f.names))}
    end
end

# The command words typed so far, skipping flags and the values they take.
function __textgen_path
    set -l words (commandline -opc)
    set -e words[1]
    set -l path
    set -l skip 0
    for w in $words
        if test $skip -eq 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $w
            if not string match -q -- '*=*' $w; and contains -- $w (__textgen_value_flags "$path")
                set skip 1
            end
            continue
        end
        if contains -- $w (__textgen_subcommands "$path")
            set -a path $w
        end
    end
    echo "$path"
end

function __textgen_path_is
    set -l path (__textgen_path)
    test "$path" = "$argv"
end

# Profile names, from the --config typed on the line when there is one (as the command will read it).
function __textgen_profiles
    set -l words (commandline -opc)
    set -l config
    for i in (seq (count $words))
        if test "$words[$i]" = --config; and set -q words[(math $i + 1)]
            set config --config $words[(math $i + 1)]
        else if string match -q -- '--config=*' $words[$i]
            set config --config (string replace -- '--config=' '' $words[$i])
        end
    end
    textgen $config ${PROFILES_COMMAND} 2>/dev/null
end

# For a value that may be @FILE: while the word starts with "@", the files matching the rest, with the "@".
function __textgen_at_files
    set -l token (commandline -ct)
    string match -q -- '@*' $token; or return 0
    set -l rest (string sub -s 2 -- $token)
    for f in $rest*
        if test -d $f
            printf '@%s/\n' $f
        else
            printf '@%s\n' $f
        end
    end
end

${lines.join('\n')}
`;
}
