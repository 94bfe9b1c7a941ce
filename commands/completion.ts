import type { CommandSpec, OptionsOf } from '../src/command.js';
import type { Context } from '../src/context.js';
import { defineCommand } from '../src/define-command.js';
import { UsageError } from '../src/contract/errors.js';

const spec = {
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

/** `textgen completion SHELL`, and the hidden `--profiles` the scripts call; the specs come from the context. */
async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  if (options.profiles === true) {
    const { profileNames } = await import('../src/completion/profile-names.js');
    const configPath = ctx.globals.config ?? ctx.env.TEXTGEN_CONFIG;
    const names = await profileNames({
      cwd: ctx.cwd,
      env: ctx.env,
      ...(configPath !== undefined ? { configPath } : {}),
    });
    ctx.out.raw(names.map((n) => `${n}\n`).join(''));
    await ctx.out.flush();
    return 0;
  }
  const { SHELLS } = await import('../src/completion/model.js');
  const args = options.args;
  const shell = SHELLS.find((s) => s === args[0]);
  if (shell === undefined) {
    const got = args[0] === undefined ? 'nothing' : `"${args[0]}"`;
    throw new UsageError(`completion needs a shell: ${SHELLS.join(', ')}; got ${got}`, {
      hint: 'e.g. textgen completion bash',
    });
  }
  const { completionModel, completionScript } = await import('../src/completion/script.js');
  ctx.out.raw(completionScript(shell, completionModel(ctx.commands)));
  await ctx.out.flush();
  return 0;
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
