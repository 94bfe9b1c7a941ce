import type { CommandSpec, OptionsOf } from '../src/command.js';
import type { Context } from '../src/context.js';
import { defineCommand } from '../src/define-command.js';
import { UsageError } from '../src/contract/errors.js';

const spec = {
  path: ['trust'],
  summary: "Trust a project's config file, so its profiles, URLs and credentials are used (by content hash)",
  description:
    'Until you trust it, a project file (.textgenrc*, textgen.config.*, package.json#textgen) may set only ' +
    'defaults: never a URL, credentials, TLS settings or code. PATH defaults to the ' +
    "file the search picks from here. The trust is recorded in the user config file with the file's " +
    'sha256, so an edited file is untrusted again. In CI, name the files in TEXTGEN_TRUST instead.',
  args: '[path]',
  options: [
    { flags: '--list', description: 'list the trusted files and whether each is unchanged' },
    { flags: '--revoke', description: 'take back the trust of PATH (default: the file the search picks)' },
  ],
  examples: ['textgen trust ./.textgenrc.yaml', 'textgen trust --list', 'textgen trust --revoke'],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  if (options.list === true && (options.revoke === true || options.args.length > 0))
    throw new UsageError('--list takes no PATH and cannot be combined with --revoke');
  const { userConfigPath } = await import('../src/config/load.js');
  const file = userConfigPath(ctx.env);
  if (options.list === true) return listTrusted(ctx, file);
  const target = await targetFile(options.args[0], ctx, options.revoke === true);
  const { updateUserFile, setTrust, removeTrust } = await import('../src/config/user-file.js');
  const { trustKey, sha256 } = await import('../src/config/trust.js');
  const key = trustKey(target.file);
  if (options.revoke === true) {
    const { uf, result } = await updateUserFile(file, ctx.env, (uf) => removeTrust(uf, key));
    ctx.reporter.info(result ? `revoked the trust of ${key} (${uf.shown})` : `${key} was not trusted`);
    return 0;
  }
  const bytes = target.bytes!;
  const hash = sha256(bytes);
  const about = await describe(key, bytes, ctx);
  const { uf } = await updateUserFile(file, ctx.env, (uf) =>
    setTrust(uf, { path: key, sha256: hash, trusted_at: new Date(ctx.now()).toISOString() }),
  );
  ctx.reporter.info(`trusted ${key} (sha256 ${hash.slice(0, 12)}…), recorded in ${uf.shown}`);
  if (about !== '') ctx.reporter.info(about);
  return 0;
}

/** The file to trust or revoke: PATH, or the one the search picks from the working directory. */
async function targetFile(
  given: string | undefined,
  ctx: Context,
  revoking: boolean,
): Promise<{ file: string; bytes?: Buffer }> {
  const path = await import('node:path');
  const { findProjectFile, isProjectFileName, PROJECT_SEARCH_PLACES } = await import('../src/config/load.js');
  const { readCandidate, isSkipped } = await import('../src/config/project-search.js');
  if (given === undefined) {
    const search = findProjectFile(ctx.cwd, ctx.env);
    if (search.found) return search.found;
    const skipped = search.skipped[0];
    if (skipped !== undefined)
      throw new UsageError(`cannot trust ${skipped.file}: it ${skipped.reason}`, {
        hint: 'textgen never reads a project file someone else can change; fix its owner or mode first',
      });
    throw new UsageError(`no project config file found from ${ctx.cwd}`, {
      hint: `looked for ${PROJECT_SEARCH_PLACES.join(', ')} in ${search.searched.join(', ')}`,
    });
  }
  const file = path.resolve(ctx.cwd, given);
  if (revoking) return { file };
  if (!isProjectFileName(file))
    throw new UsageError(`${given} is not a project config file: textgen reads ${PROJECT_SEARCH_PLACES.join(', ')}`);
  const found = readCandidate(file);
  if (found === undefined) throw new UsageError(`${given} does not exist (or is not a textgen config)`);
  if (isSkipped(found))
    throw new UsageError(`cannot trust ${given}: it ${found.reason}`, {
      hint: 'textgen never reads a project file someone else can change; fix its owner or mode first',
    });
  return found;
}

/** What trusting the file lets it do, in a line: its profiles and where they connect, or that it is code. */
async function describe(file: string, bytes: Buffer, ctx: Context): Promise<string> {
  const { isCodeConfig, parseData, checkProjectData, displayPath, homeDir } = await import('../src/config/load.js');
  if (isCodeConfig(file)) return 'it is code: it runs with your permissions whenever textgen reads the config here';
  const show = (f: string) => displayPath(f, homeDir(ctx.env));
  // A file the loader would refuse is not trusted: the error names the field.
  const { config } = await checkProjectData(file, await parseData({ file, bytes }, show), show);
  const profiles = Object.entries(config.profiles ?? {}).map(
    ([name, p]) => `${name}${p.url !== undefined ? ` → ${p.url}` : ''}`,
  );
  return profiles.length > 0 ? `its profiles: ${profiles.join(', ')}` : '';
}

async function listTrusted(ctx: Context, file: string): Promise<number> {
  const { readUserFile, userFileConfig } = await import('../src/config/user-file.js');
  const { sha256, trustedByEnv, TRUST_ENV } = await import('../src/config/trust.js');
  const { readFileSync } = await import('node:fs');
  const config = await userFileConfig(await readUserFile(file, ctx.env));
  const stateOf = (p: string, hash: string) => {
    try {
      return sha256(readFileSync(p)) === hash ? 'trusted' : 'changed';
    } catch {
      return 'missing';
    }
  };
  const rows = [
    ...(config.trusted_files ?? []).map((r) => ({
      path: r.path,
      state: stateOf(r.path, r.sha256),
      sha256: r.sha256,
      trusted_at: r.trusted_at ?? null,
      by: 'textgen trust',
    })),
    ...trustedByEnv(ctx.env, ctx.cwd).map((p) => ({
      path: p,
      state: 'trusted',
      sha256: null,
      trusted_at: null,
      by: TRUST_ENV,
    })),
  ];
  const { writeResult } = await import('../src/flows/write-result.js');
  const { alignColumns } = await import('../src/output/text-table.js');
  await writeResult(ctx, ctx.output().format, rows, () =>
    rows.length === 0
      ? '(no trusted project files: trust one with "textgen trust PATH")\n'
      : alignColumns(rows.map((r) => [r.state, r.path, r.by === TRUST_ENV ? TRUST_ENV : (r.trusted_at ?? '')])),
  );
  return 0;
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
