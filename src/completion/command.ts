import type { spec } from '../../commands/completion.js';
import type { OptionsOf } from '../command.js';
import type { Context } from '../context.js';

/** `textgen completion SHELL` and the hidden `--profiles` the scripts call (the spec is commands/completion.ts). */
export async function runCompletion(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  if (options.profiles === true) {
    const { profileNames } = await import('./profile-names.js');
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
  const { UsageError } = await import('../contract/errors.js');
  const { SHELLS } = await import('./model.js');
  const args = options.args;
  const shell = SHELLS.find((s) => s === args[0]);
  if (shell === undefined) {
    const got = args[0] === undefined ? 'nothing' : `"${args[0]}"`;
    throw new UsageError(`completion needs a shell: ${SHELLS.join(', ')}; got ${got}`, {
      hint: 'e.g. textgen completion bash',
    });
  }
  const { completionScript, loadCompletionModel } = await import('./script.js');
  ctx.out.raw(completionScript(shell, await loadCompletionModel()));
  await ctx.out.flush();
  return 0;
}
