import type { CommandSpec } from '../src/command.js';

export const spec = {
  path: ['completion'],
  summary: 'Print a shell completion script for bash, zsh or fish',
  description:
    "The script completes command words, each command's flags, the values of --output and --provider, " +
    'file names for --input-file, --config, --ca-cert and @file, and the profile names in your config ' +
    "(read when you press Tab, so new profiles complete at once). Load it from your shell's startup file.",
  args: '[shell]',
  options: [
    // What the scripts call for --profile values; hidden because people have no use for it.
    { flags: '--profiles', description: 'print the profile names, one per line', hidden: true },
  ],
  examples: [
    'textgen completion bash > ~/.local/share/bash-completion/completions/textgen',
    "echo 'source <(textgen completion zsh)' >> ~/.zshrc",
    'textgen completion fish > ~/.config/fish/completions/textgen.fish',
  ],
} as const satisfies CommandSpec;

// Its handler is src/completion/command.ts: it reads every command's spec, this one's too, so it cannot live here.
