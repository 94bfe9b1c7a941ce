import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';

const spec = {
  path: ['profiles', 'list'],
  summary: 'List configured profiles (* marks the default) and the built-in local ones',
  description:
    'Configured profiles come from the user config file and the project file found from the current ' +
    'directory (a project profile wins over a user one of the same name); each line names the file it ' +
    'came from. The built-in local-* profiles talk to the embedded server. -o json gives ' +
    '{default_profile, profiles, built_in}.',
  options: [],
  examples: ['textgen profiles list', 'textgen profiles list -o json'],
} as const satisfies CommandSpec;

async function run(_options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const format = ctx.output().format;
  const { loadConfig, displayPath, homeDir } = await import('../../src/config/load.js');
  const { LOCAL_PROFILES } = await import('../../src/config/resolve.js');
  const { redactUrl } = await import('../../src/contract/redact.js');
  const configPath = ctx.globals.config ?? ctx.env.TEXTGEN_CONFIG;
  // Listing runs no project code: a textgen.config.js is named, not run (commands that use a profile run it).
  const config = await loadConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    ...(configPath ? { configPath } : {}),
    warn: (m) => ctx.reporter.warn(m),
    runCode: false,
  });
  if (config.sources.skippedCode) {
    ctx.reporter.info(
      `note: ${displayPath(config.sources.skippedCode, homeDir(ctx.env))} is code and was not run, so its profiles are not listed; commands that use a profile run it`,
    );
  }
  const home = homeDir(ctx.env);
  const profiles = Object.keys(config.profiles)
    .sort()
    .map((name) => {
      const p = config.profiles[name]!;
      const file = config.sources.profiles[name];
      return {
        name,
        default: config.default_profile === name,
        provider: p.provider,
        url: p.url === undefined ? '' : redactUrl(p.url),
        source: file ? displayPath(file, home) : 'config',
      };
    });
  const builtIn = Object.entries(LOCAL_PROFILES).map(([name, p]) => ({
    name,
    default: config.default_profile === name,
    provider: p.provider,
    model: p.defaults?.model ?? '',
  }));
  const value = { default_profile: config.default_profile ?? null, profiles, built_in: builtIn };
  const { writeResult } = await import('../../src/flows/write-result.js');
  const { alignColumns } = await import('../../src/output/text-table.js');
  await writeResult(ctx, format, value, () => {
    const mark = (d: boolean) => (d ? '*' : ' ');
    const configured =
      profiles.length > 0
        ? alignColumns(profiles.map((p) => [`${mark(p.default)} ${p.name}`, p.provider, p.url, p.source]))
        : '  (none: create one with "textgen profiles add")\n';
    const local = alignColumns(
      builtIn.map((p) => [`${mark(p.default)} ${p.name}`, p.provider, `embedded server, model ${p.model}`]),
    );
    return `${configured}\nbuilt-in:\n${local}`;
  });
  return 0;
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
