import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayPath, loadConfig, userConfigPath, type LoadedConfig } from '../../src/config/load.js';
import { UsageError } from '../../src/contract/errors.js';

let root: string;
let home: string;
let cwd: string;
let env: Record<string, string | undefined>;
let warnings: string[];

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'textgen-config-'));
  home = path.join(root, 'home');
  cwd = path.join(home, 'work', 'proj', 'sub');
  await mkdir(cwd, { recursive: true });
  env = { HOME: home };
  warnings = [];
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(file: string, content: string, mode = 0o600): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  await chmod(file, mode);
  return file;
}

const userFile = () => path.join(home, '.config', 'textgen', 'config.yaml');

function load(extra: { configPath?: string; cwd?: string } = {}): Promise<LoadedConfig> {
  return loadConfig({
    cwd: extra.cwd ?? cwd,
    env,
    warn: (m) => warnings.push(m),
    ...(extra.configPath ? { configPath: extra.configPath } : {}),
  });
}

async function loadError(extra: { configPath?: string } = {}): Promise<UsageError> {
  const error = await load(extra).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

const WX_USER = `
default_profile: wx
profiles:
  wx:
    provider: watsonx
    url: https://us-south.ml.cloud.ibm.com
    space_id: s-user
    auth: { type: iam, apikey_env: WATSONX_APIKEY }
  aa:
    provider: aleph-alpha
    url: https://api.aleph-alpha.com
`;

describe('the user file', () => {
  it('is optional: with no files at all the config is empty', async () => {
    const config = await load();
    expect(config).toEqual({ profiles: {}, sources: { profiles: {}, userFile: userFile() } });
  });

  it('is read from ~/.config/textgen/config.yaml by default', async () => {
    await put(userFile(), WX_USER);
    const config = await load();
    expect(config.default_profile).toBe('wx');
    expect(Object.keys(config.profiles)).toEqual(['wx', 'aa']);
    expect(config.profiles.wx?.auth).toEqual({ type: 'iam', apikey_env: 'WATSONX_APIKEY' });
    expect(config.sources.profiles).toEqual({ wx: userFile(), aa: userFile() });
    expect(config.sources.projectFile).toBeUndefined();
  });

  it('is read from $XDG_CONFIG_HOME/textgen/config.yaml when XDG_CONFIG_HOME is set', async () => {
    const xdg = path.join(root, 'xdg');
    env.XDG_CONFIG_HOME = xdg;
    await put(path.join(xdg, 'textgen', 'config.yaml'), WX_USER);
    const config = await load();
    expect(config.sources.userFile).toBe(path.join(xdg, 'textgen', 'config.yaml'));
    expect(config.profiles.wx?.provider).toBe('watsonx');
  });

  it('ignores a relative XDG_CONFIG_HOME, as the XDG spec says', () => {
    expect(userConfigPath({ HOME: '/h', XDG_CONFIG_HOME: 'rel/dir' })).toBe(
      path.join('/h', '.config', 'textgen', 'config.yaml'),
    );
  });

  it.each([
    ['empty', ''],
    ['only comments', '# nothing yet\n'],
    ['an empty profiles key', 'profiles:\n'],
  ])('may be %s', async (_case, content) => {
    await put(userFile(), content);
    expect((await load()).profiles).toEqual({});
  });
});

describe('project config discovery', () => {
  const WX = { provider: 'watsonx', url: 'https://cpd.example.com' };
  const cases: Array<[place: string, content: string]> = [
    ['.textgenrc', 'profiles:\n  p: { provider: watsonx, url: "https://cpd.example.com" }\n'],
    ['.textgenrc.json', JSON.stringify({ profiles: { p: WX } })],
    ['.textgenrc.yaml', 'profiles:\n  p: { provider: watsonx, url: "https://cpd.example.com" }\n'],
    ['.textgenrc.yml', 'profiles:\n  p: { provider: watsonx, url: "https://cpd.example.com" }\n'],
    ['textgen.config.js', `export default ${JSON.stringify({ profiles: { p: WX } })};\n`],
    ['textgen.config.mjs', `export default ${JSON.stringify({ profiles: { p: WX } })};\n`],
    ['textgen.config.cjs', `module.exports = ${JSON.stringify({ profiles: { p: WX } })};\n`],
    [
      'textgen.config.ts',
      `const config: Record<string, unknown> = ${JSON.stringify({ profiles: { p: WX } })};\nexport default config;\n`,
    ],
    ['package.json', JSON.stringify({ name: 'proj', textgen: { profiles: { p: WX } } })],
  ];

  it.each(cases)('finds %s in a parent directory of the working directory', async (place, content) => {
    const file = await put(path.join(home, 'work', 'proj', place), content);
    env.TEXTGEN_TRUST = file;
    const config = await load();
    expect(config.sources.projectFile).toBe(file);
    expect(config.profiles.p).toEqual(WX);
    expect(config.sources.profiles.p).toBe(file);
  });

  it('takes the nearest file when several directories have one', async () => {
    await put(
      path.join(home, 'work', '.textgenrc.yaml'),
      'profiles:\n  far: { provider: openai, url: "https://far" }\n',
    );
    const near = await put(
      path.join(cwd, '.textgenrc.yaml'),
      'profiles:\n  near: { provider: openai, url: "https://near" }\n',
    );
    env.TEXTGEN_TRUST = near;
    const config = await load();
    expect(config.sources.projectFile).toBe(near);
    expect(Object.keys(config.profiles)).toEqual(['near']);
  });

  it('skips a package.json without a textgen key and keeps walking up', async () => {
    await put(path.join(cwd, 'package.json'), JSON.stringify({ name: 'sub' }));
    const file = await put(path.join(home, 'work', '.textgenrc.json'), JSON.stringify({ profiles: { p: WX } }));
    expect((await load()).sources.projectFile).toBe(file);
  });

  it('searches the home directory itself', async () => {
    const file = await put(path.join(home, '.textgenrc.yaml'), 'default_profile: p\n');
    expect((await load()).sources.projectFile).toBe(file);
  });

  it('stops at the home directory: a file above it is not read', async () => {
    await put(path.join(root, '.textgenrc.yaml'), 'profiles:\n  above: { provider: openai, url: "https://above" }\n');
    const config = await load();
    expect(config.sources.projectFile).toBeUndefined();
    expect(config.profiles).toEqual({});
  });

  it('outside home reads only the working directory when it is in no repository', async () => {
    const outside = path.join(root, 'elsewhere', 'deep');
    await mkdir(outside, { recursive: true });
    await put(path.join(root, 'elsewhere', '.textgenrc.yaml'), 'default_profile: x\n');
    expect((await load({ cwd: outside })).sources.projectFile).toBeUndefined();
    const here = await put(path.join(outside, '.textgenrc.yaml'), 'default_profile: y\n');
    expect((await load({ cwd: outside })).sources.projectFile).toBe(here);
  });

  it('outside home walks up to the git repository root, and no further', async () => {
    const repo = path.join(root, 'srv', 'repo');
    const deep = path.join(repo, 'a', 'b');
    await mkdir(path.join(repo, '.git'), { recursive: true });
    await mkdir(deep, { recursive: true });
    await put(path.join(root, 'srv', '.textgenrc.yaml'), 'default_profile: above\n');
    expect((await load({ cwd: deep })).sources.projectFile).toBeUndefined();
    const top = await put(path.join(repo, '.textgenrc.yaml'), 'default_profile: top\n');
    expect((await load({ cwd: deep })).sources.projectFile).toBe(top);
  });
});

describe('merging the project file over the user file', () => {
  it('replaces a user profile of the same name whole and keeps the others', async () => {
    await put(userFile(), WX_USER);
    const project = await put(
      path.join(cwd, '.textgenrc.yaml'),
      'profiles:\n  wx:\n    provider: watsonx\n    url: https://eu-de.ml.cloud.ibm.com\n',
    );
    env.TEXTGEN_TRUST = project;
    const config = await load();
    // space_id and auth of the user's wx are gone: the project's wx is taken as written.
    expect(config.profiles.wx).toEqual({ provider: 'watsonx', url: 'https://eu-de.ml.cloud.ibm.com' });
    expect(config.profiles.aa?.provider).toBe('aleph-alpha');
    expect(config.sources.profiles).toEqual({ wx: project, aa: userFile() });
    expect(config.default_profile).toBe('wx');
  });

  it('takes default_profile from the project file when it has one', async () => {
    await put(userFile(), WX_USER);
    await put(path.join(cwd, '.textgenrc.yaml'), 'default_profile: aa\n');
    const config = await load();
    expect(config.default_profile).toBe('aa');
    expect(config.sources.profiles.wx).toBe(userFile());
  });
});

describe('--config', () => {
  it('loads exactly that file: neither the user file nor a project file is read', async () => {
    await put(userFile(), WX_USER);
    await put(path.join(cwd, '.textgenrc.yaml'), 'profiles:\n  proj: { provider: openai, url: "https://p" }\n');
    const file = await put(
      path.join(root, 'ci', 'textgen.yaml'),
      'profiles:\n  ci: { provider: open-inference, url: "http://localhost:8000" }\n',
    );
    const config = await load({ configPath: file });
    expect(Object.keys(config.profiles)).toEqual(['ci']);
    expect(config.sources).toEqual({ profiles: { ci: file }, userFile: file });
  });

  it.each([
    ['conf.json', JSON.stringify({ profiles: { c: { provider: 'openai', url: 'https://c' } } })],
    ['conf.yml', 'profiles:\n  c: { provider: openai, url: "https://c" }\n'],
    ['conf.mjs', 'export default { profiles: { c: { provider: "openai", url: "https://c" } } };\n'],
    ['conf', 'profiles:\n  c: { provider: openai, url: "https://c" }\n'],
  ])('reads %s, resolving a relative path against the working directory', async (name, content) => {
    await put(path.join(cwd, name), content);
    const config = await load({ configPath: name });
    expect(config.profiles.c).toEqual({ provider: 'openai', url: 'https://c' });
    expect(config.sources.userFile).toBe(path.join(cwd, name));
  });

  it('is a usage error when the file does not exist', async () => {
    const error = await loadError({ configPath: 'missing.yaml' });
    expect(error.message).toBe(`config file ~/work/proj/sub/missing.yaml does not exist`);
    expect(error.exitCode).toBe(2);
  });

  it('is a usage error when the path is a directory', async () => {
    const error = await loadError({ configPath: '.' });
    expect(error.message).toBe(`config file ~/work/proj/sub is not a file`);
  });

  it('may hold literal secrets, like the user file', async () => {
    const file = await put(
      path.join(root, 'mine.yaml'),
      'profiles:\n  c: { provider: openai, url: "https://c", auth: { type: bearer, token: sk-1 } }\n',
    );
    const config = await load({ configPath: file });
    expect(config.profiles.c?.auth).toEqual({ type: 'bearer', token: 'sk-1' });
  });
});

describe('literal secrets', () => {
  const cases: Array<[field: string, auth: string]> = [
    ['apikey', '{ type: iam, apikey: abc }'],
    ['password', '{ type: cpd, username: admin, password: abc }'],
    ['token', '{ type: bearer, token: abc }'],
    ['key', '{ type: api-key, key: abc }'],
  ];

  it.each(cases)('a literal %s in a project file is a usage error naming the file and field', async (field, auth) => {
    await put(
      path.join(cwd, '.textgenrc.yaml'),
      `profiles:\n  p:\n    provider: watsonx\n    url: https://x.example\n    auth: ${auth}\n`,
    );
    const error = await loadError();
    expect(error.message).toBe(
      `~/work/proj/sub/.textgenrc.yaml: profiles.p.auth.${field}: a literal secret is not allowed in a project config file`,
    );
    expect(error.hint).toContain(`${field}_env`);
    expect(error.message).not.toContain('abc');
  });

  it.each(cases)('a literal %s in the user file is allowed', async (_field, auth) => {
    await put(userFile(), `profiles:\n  p:\n    provider: watsonx\n    url: https://x.example\n    auth: ${auth}\n`);
    await expect(load()).resolves.toMatchObject({ profiles: { p: { provider: 'watsonx' } } });
  });

  it('warns when the user file holds a secret and others can read it', async () => {
    await put(
      userFile(),
      'profiles:\n  p: { provider: openai, url: "https://x", auth: { type: bearer, token: sk-1 } }\n',
      0o644,
    );
    await load();
    expect(warnings).toEqual([
      `~/.config/textgen/config.yaml holds a secret and is readable by others; run chmod 600 ${userFile()}`,
    ]);
  });

  it.each([
    [
      'the file is 0600',
      'profiles:\n  p: { provider: openai, url: "https://x", auth: { type: bearer, token: sk-1 } }\n',
      0o600,
    ],
    [
      'it holds only env references',
      'profiles:\n  p: { provider: openai, url: "https://x", auth: { type: bearer, token_env: T } }\n',
      0o644,
    ],
  ])('does not warn when %s', async (_case, content, mode) => {
    await put(userFile(), content, mode);
    await load();
    expect(warnings).toEqual([]);
  });
});

describe('displayPath', () => {
  it.each([
    ['/home/u/.config/textgen/config.yaml', '/home/u', '~/.config/textgen/config.yaml'],
    ['/etc/textgen.yaml', '/home/u', '/etc/textgen.yaml'],
    ['/home/user2/x', '/home/u', '/home/user2/x'],
  ])('shows %s under home %s as %s', (file, h, shown) => {
    expect(displayPath(file, h)).toBe(shown);
  });
});
