import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { UsageError } from '../../src/contract/errors.js';

const spec = {
  path: ['profiles', 'remove'],
  summary: 'Remove a profile from the user config file (asks first on a terminal; --yes for scripts)',
  description:
    'Edits the user config file (or the --config file), keeping its comments and layout. Without --yes ' +
    'it asks first, and where nothing can ask (CI, a pipe) it refuses. Removing the default profile ' +
    'leaves no default set.',
  args: '<name>',
  options: [{ flags: '-y, --yes', description: 'do not ask for confirmation' }],
  examples: ['textgen profiles remove old-wx', 'textgen profiles remove old-wx --yes'],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { editableConfigPath, hasProfile, readUserFile, removeProfile, updateUserFile } = await import(
    '../../src/config/user-file.js'
  );
  // NAME is a required argument: commander refuses the command line without it.
  const name = options.args[0];
  const configPath = ctx.globals.config ?? ctx.env.TEXTGEN_CONFIG;
  const file = editableConfigPath({ configPath, cwd: ctx.cwd, env: ctx.env });
  const uf = await readUserFile(file, ctx.env);
  if (!hasProfile(uf, name))
    throw new UsageError(`no profile "${name}" in ${uf.shown}`, { hint: 'textgen profiles list' });
  if (options.yes !== true) {
    if (!ctx.terminal.interactive) throw new UsageError(`removing profile "${name}" needs --yes when nothing can ask`);
    const prompter = await ctx.prompter();
    if (!(await prompter.confirm(`Remove profile "${name}" from ${uf.shown}?`))) {
      ctx.reporter.info('nothing changed');
      return 0;
    }
  }
  // Under the file's lock, on the file as it is now (another command may have changed it while this one asked).
  const { result: wasDefault } = await updateUserFile(file, ctx.env, (latest) => {
    const was = latest.doc.get('default_profile') === name;
    removeProfile(latest, name);
    return was;
  });
  ctx.reporter.info(`removed profile "${name}" from ${uf.shown}${wasDefault ? '; no default profile is set now' : ''}`);
  return 0;
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
