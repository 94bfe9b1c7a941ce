import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { UsageError } from '../../src/contract/errors.js';

const spec = {
  path: ['profiles', 'show'],
  summary: 'Show one profile as configured, secrets redacted (the default profile when NAME is omitted)',
  description:
    'Text output is the profile as YAML under a comment naming the file it comes from (or built-in). ' +
    'Literal secrets are replaced by a redaction mark; *_env fields name the variable and are shown as ' +
    "they are. -o json adds name, default and source to the profile's fields.",
  args: '[name]',
  options: [],
  examples: ['textgen profiles show wx', 'textgen profiles show -o json'],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const format = ctx.output().format;
  const { loadConfig, displayPath, homeDir } = await import('../../src/config/load.js');
  const { LOCAL_PROFILES, knownProfileNames } = await import('../../src/config/resolve.js');
  const { redactProfile } = await import('../../src/profiles/redact-profile.js');
  const configPath = ctx.globals.config ?? ctx.env.TEXTGEN_CONFIG;
  const config = await loadConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    ...(configPath ? { configPath } : {}),
    warn: (m) => ctx.reporter.warn(m),
  });
  const name = options.args[0] ?? config.default_profile;
  if (name === undefined)
    throw new UsageError('missing required argument: NAME (no default profile is set)', {
      hint: 'textgen profiles list',
    });
  const configured = Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined;
  const profile = configured ?? (Object.hasOwn(LOCAL_PROFILES, name) ? LOCAL_PROFILES[name] : undefined);
  if (!profile)
    throw new UsageError(`unknown profile "${name}"; known profiles: ${knownProfileNames(config).join(', ')}`);
  const file = config.sources.profiles[name];
  const source = configured ? (file ? displayPath(file, homeDir(ctx.env)) : 'config') : 'built-in';
  const value = { name, default: config.default_profile === name, source, ...redactProfile(profile) };
  const { writeResult } = await import('../../src/flows/write-result.js');
  const { renderStructured } = await import('../../src/output/format.js');
  // For people: the profile as it would be written in YAML, under a comment saying where it lives.
  const yaml = await renderStructured({ [name]: redactProfile(profile) }, 'yaml', { rawOutput: false });
  await writeResult(ctx, format, value, () => `# ${source}${value.default ? ' (default)' : ''}\n${yaml}`);
  return 0;
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
