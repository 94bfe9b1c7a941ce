import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { AUTH_TYPES } from '../../src/contract/profile.js';

const spec = {
  path: ['profiles', 'add'],
  summary: 'Create or replace a profile in the user config file (asks for what is missing on a terminal)',
  description:
    'Writes $XDG_CONFIG_HOME/textgen/config.yaml (or the --config file) with mode 0600, keeping its ' +
    'other profiles and comments. --provider, --url, --api-key, --token and --api-version describe the ' +
    'new profile. A literal --api-key/--token is stored in the file and never printed; prefer ' +
    '--apikey-env/--token-env. The connection is tested with the health check before saving: without a ' +
    'terminal a failed check exits with its code (3, 4 or 5) and saves nothing, unless --no-check.',
  args: '[name]',
  options: [
    {
      flags: '--auth-type <type>',
      description: 'iam | cpd | zenapikey (watsonx), api-key (azure-openai, openai), bearer, none',
      choices: AUTH_TYPES,
    },
    { flags: '--apikey-env <var>', description: 'environment variable holding the API key' },
    { flags: '--token-env <var>', description: 'environment variable holding the bearer token' },
    { flags: '--username <user>', description: 'Cloud Pak for Data user (auth types cpd, zenapikey)' },
    { flags: '--default', description: 'make it the default profile (the first profile always is)' },
    { flags: '--no-check', description: 'save without testing the connection' },
  ],
  examples: [
    'textgen profiles add wx --provider watsonx --url https://us-south.ml.cloud.ibm.com --apikey-env WATSONX_APIKEY --default',
    'textgen profiles add triton --provider open-inference --url http://localhost:8000 --no-check',
    'textgen profiles add',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { draftProfile } = await import('../../src/profiles/profile-draft.js');
  const { editableConfigPath, hasProfile, readUserFile, setDefaultProfile, setProfile, updateUserFile } = await import(
    '../../src/config/user-file.js'
  );
  const g = ctx.globals;
  const file = editableConfigPath({ configPath: g.config ?? ctx.env.TEXTGEN_CONFIG, cwd: ctx.cwd, env: ctx.env });
  const { isProjectFileName } = await import('../../src/config/load.js');
  // The loader's own rule: a file with a project file's name gets committed, and a literal secret in it is refused.
  const projectFile = isProjectFileName(file);
  const uf = await readUserFile(file, ctx.env);
  const prompter = ctx.terminal.interactive ? await ctx.prompter() : undefined;
  const { name, profile } = await draftProfile(
    {
      name: options.args[0],
      provider: g.provider,
      url: g.url,
      authType: options.authType,
      apikeyEnv: options.apikeyEnv,
      tokenEnv: options.tokenEnv,
      apiKey: g.apiKey,
      token: g.token,
      username: options.username,
      apiVersion: g.apiVersion,
      ...(projectFile ? { projectFile: uf.shown } : {}),
    },
    prompter,
  );
  if (
    hasProfile(uf, name) &&
    prompter &&
    !(await prompter.confirm(`Profile "${name}" exists in ${uf.shown}. Replace it?`))
  ) {
    ctx.reporter.info('nothing changed');
    return 0;
  }

  if (options.check !== false) {
    const { checkProfile, ConnectionTestFailed } = await import('../../src/profiles/check-profile.js');
    const check = await checkProfile(ctx, name, profile, file);
    if (!check.ok) {
      if (!prompter) throw new ConnectionTestFailed(check);
      ctx.reporter.warn(`connection test failed: ${check.summary}`);
      if (check.hint !== undefined) ctx.reporter.info(`hint: ${check.hint}`);
      if (!(await prompter.confirm('Save the profile anyway?'))) {
        ctx.reporter.info('nothing was saved');
        return check.exitCode;
      }
    } else {
      ctx.reporter.info(`connection test: ${check.summary}`);
    }
  }

  // Read again under the file's lock: another command may have changed it while this one asked and tested.
  const { result: makeDefault } = await updateUserFile(file, ctx.env, (latest) => {
    setProfile(latest, name, profile);
    // The first profile becomes the default: with one profile there is nothing else to mean.
    const first = options.default === true || latest.doc.get('default_profile') === undefined;
    if (first) setDefaultProfile(latest, name);
    return first;
  });
  ctx.reporter.info(`saved profile "${name}" in ${uf.shown}${makeDefault ? ' (default)' : ''}`);
  return 0;
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
