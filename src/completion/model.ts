/**
 * What shell completion knows about textgen, derived from the command specs and global options `src/cli/program.ts` uses,
 * so the generated scripts can never drift from the parser.
 */
import type { CommandSpec, OptionSpec } from '../command.js';
import { PROVIDER_KINDS } from '../contract/profile.js';

/** Where a flag's value comes from when completing it. */
export type ValueKind = 'profile' | 'output' | 'provider' | 'file' | 'choice' | 'free';

export interface CompletionFlag {
  /** Every spelling, e.g. ["-o", "--output"]. */
  names: string[];
  description: string;
  /** Set when the next word is the flag's value; optional values (`[bool]`) count as no value. */
  value?: ValueKind;
  /** The words of a `choice` value: the flag's declared choices, else the placeholder's list (`<greedy|sample>`). */
  choices?: string[];
  /** The value may be `@FILE` (the placeholder says `@file`: `<json|@file>`, `<@file>`): files after an "@". */
  atFile?: boolean;
}

export interface CompletionNode {
  /** Command words from the root, e.g. ["deployment", "text-generate"]; [] is the root. */
  path: string[];
  description: string;
  flags: CompletionFlag[];
  children: CompletionNode[];
  /** Fixed words for the positional argument, e.g. the shells of `completion`. */
  argValues: string[];
}

export interface CompletionModel {
  root: CompletionNode;
  globalFlags: CompletionFlag[];
}

export const OUTPUT_FORMATS = ['text', 'json', 'jsonl', 'yaml'] as const;
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Positional words known in advance, by command path. */
const ARG_VALUES: Record<string, readonly string[]> = { completion: SHELLS };

export function valueWords(kind: ValueKind): readonly string[] {
  if (kind === 'output') return OUTPUT_FORMATS;
  if (kind === 'provider') return PROVIDER_KINDS;
  return [];
}

export function parseFlag(option: OptionSpec): CompletionFlag {
  // Names come before the value placeholder: in "--input-file <path|->" the "-" is a value, not a flag.
  const names = (option.flags.split(/[<[]/)[0] ?? '').split(/[\s,|]+/).filter((w) => /^--?[A-Za-z0-9]/.test(w));
  const required = /<([^>]+)>/.exec(option.flags);
  const flag: CompletionFlag = { names, description: option.description };
  if (required) {
    const placeholder = required[1] ?? '';
    flag.value = kindOf(names, placeholder);
    // Declared choices win over what the placeholder shows: `--gpu <mode>` takes auto or off.
    if (option.choices !== undefined && option.choices.length > 0 && flag.value === 'free') flag.value = 'choice';
    if (flag.value === 'choice') flag.choices = option.choices ? [...option.choices] : placeholder.split('|');
    if (placeholder.split('|').includes('@file')) flag.atFile = true;
  }
  return flag;
}

function kindOf(names: string[], placeholder: string): ValueKind {
  if (names.includes('--profile')) return 'profile';
  if (names.includes('--output')) return 'output';
  if (names.includes('--provider')) return 'provider';
  // The placeholder says it: <path>, <file>, <path|->, <file.jsonl>, <output.jsonl>.
  if (/^(path|file)\b/.test(placeholder) || /^[a-z]+\.[a-z]+(\|-)?$/.test(placeholder)) return 'file';
  // Words to pick from: <greedy|sample>; not the forms <json|@file>, <text|@file>, <path|->.
  const words = placeholder.split('|');
  if (words.length > 1 && words.every((w) => /^[a-z][a-z0-9_-]*$/.test(w) && !['json', 'text'].includes(w)))
    return 'choice';
  return 'free';
}

export function buildCompletionModel(
  specs: readonly CommandSpec[],
  globals: readonly OptionSpec[],
  groupDescriptions: Record<string, string> = {},
): CompletionModel {
  const root: CompletionNode = { path: [], description: '', flags: [], children: [], argValues: [] };
  for (const spec of specs) {
    let node = root;
    for (const word of spec.path) node = childOf(node, word, groupDescriptions[word] ?? word);
    node.description = spec.summary;
    node.flags = spec.options.filter((o) => o.hidden !== true).map(parseFlag);
    node.argValues = [...(ARG_VALUES[spec.path.join(' ')] ?? [])];
  }
  return { root, globalFlags: globals.map(parseFlag) };
}

function childOf(node: CompletionNode, word: string, description: string): CompletionNode {
  let child = node.children.find((c) => c.path[c.path.length - 1] === word);
  if (!child) {
    child = { path: [...node.path, word], description, flags: [], children: [], argValues: [] };
    node.children.push(child);
  }
  return child;
}

/** Every node, root first, parents before children. */
export function allNodes(model: CompletionModel): CompletionNode[] {
  const out: CompletionNode[] = [];
  const walk = (n: CompletionNode) => {
    out.push(n);
    n.children.forEach(walk);
  };
  walk(model.root);
  return out;
}

/** The command that prints profile names for completion, one per line. */
export const PROFILES_COMMAND = 'completion --profiles';
