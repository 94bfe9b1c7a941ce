import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { UsageError } from '../../src/contract/errors.js';

const spec = {
  path: ['profiles', 'use'],
  summary: 'Make a profile the default (default_profile in the user config file)',
  description:
    'Any configured or built-in profile can be the default. It is written to the user config file (or ' +
    "the --config file); a project file's own default_profile still wins in its directory, and you are " +
    'warned when it does.',
  args: '<name>',
  options: [],
  examples: ['textgen profiles use wx', 'textgen profiles use local'],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { loadConfig } = await import('../../src/config/load.js');
  const { LOCAL_PROFILES, knownProfileNames } = await import('../../src/config/resolve.js');
  const { editableConfigPath, setDefaultProfile, updateUserFile } = await import('../../src/config/user-file.js');
  // NAME is a required argument: commander refuses the command line without it.
  const name = options.args[0];
  const configPath = ctx.globals.config ?? ctx.env.TEXTGEN_CONFIG;
  const config = await loadConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    ...(configPath ? { configPath } : {}),
    warn: (m) => ctx.reporter.warn(m),
  });
  if (!Object.hasOwn(config.profiles, name) && !Object.hasOwn(LOCAL_PROFILES, name)) {
    throw new UsageError(`unknown profile "${name}"; known profiles: ${knownProfileNames(config).join(', ')}`, {
      hint: 'create it with "textgen profiles add"',
    });
  }
  const { uf } = await updateUserFile(
    editableConfigPath({ configPath, cwd: ctx.cwd, env: ctx.env }),
    ctx.env,
    (latest) => setDefaultProfile(latest, name),
  );
  ctx.reporter.info(`default profile: ${name} (${uf.shown})`);
  const after = await loadConfig({ cwd: ctx.cwd, env: ctx.env, ...(configPath ? { configPath } : {}), warn: () => {} });
  if (after.default_profile !== name && after.sources.projectFile) {
    ctx.reporter.warn(
      `${after.sources.projectFile} sets default_profile: ${after.default_profile ?? ''}, which wins in this directory`,
    );
  }
  return 0;
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
