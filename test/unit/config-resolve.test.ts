import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../../src/config/load.js';
import { knownProfileNames, resolveProfile } from '../../src/config/resolve.js';
import type { ProfileConfig } from '../../src/config/schema.js';
import { bearerTokenEnv } from '../../src/contract/auth.js';
import type { ResolvedProfile } from '../../src/contract/profile.js';
import type { GlobalOptions } from '../../src/global-options.js';
import { AuthError, UsageError } from '../../src/contract/errors.js';

const HOME = '/home/u';
const USER_FILE = `${HOME}/.config/textgen/config.yaml`;
const PROJECT_FILE = `${HOME}/work/proj/.textgenrc.yaml`;
const IAM = 'https://iam.cloud.ibm.com/identity/token';

function configOf(
  profiles: Record<string, ProfileConfig>,
  extra: { default_profile?: string; from?: Record<string, string> } = {},
): LoadedConfig {
  const sources = Object.fromEntries(Object.keys(profiles).map((n) => [n, extra.from?.[n] ?? USER_FILE]));
  const config: LoadedConfig = { profiles, sources: { profiles: sources, userFile: USER_FILE } };
  if (extra.default_profile !== undefined) config.default_profile = extra.default_profile;
  return config;
}

const PROFILES: Record<string, ProfileConfig> = {
  wx: {
    provider: 'watsonx',
    url: 'https://us-south.ml.cloud.ibm.com/',
    api_version: '2024-05-01',
    space_id: 'space-1',
    timeout: 60_000,
    retries: 4,
    auth: { type: 'iam', apikey_env: 'WATSONX_APIKEY' },
  },
  cpd: {
    provider: 'watsonx',
    url: 'https://cpd.example.com',
    project_id: 'proj-1',
    auth: { type: 'cpd', username: 'admin', password_env: 'CPD_PASSWORD' },
    tls: { ca_cert: './cpd-ca.pem', insecure: true },
  },
  zen: {
    provider: 'watsonx',
    url: 'https://cpd.example.com',
    auth: { type: 'zenapikey', username: 'admin', apikey: 'zen-literal' },
  },
  azure: {
    provider: 'azure-openai',
    url: 'https://myres.openai.azure.com',
    api_version: '2022-03-01-preview',
    auth: { type: 'api-key', key_env: 'AZURE_KEY' },
  },
  aa: {
    provider: 'aleph-alpha',
    url: 'https://api.aleph-alpha.com',
    auth: { type: 'bearer', token_env: 'AA_TOKEN' },
    defaults: { model: 'luminous-base', hosting: 'aleph-alpha', parameters: { max_new_tokens: 64 } },
  },
  triton: { provider: 'open-inference', url: 'http://localhost:8000' },
};

const ENV = { HOME, WATSONX_APIKEY: 'wx-key', CPD_PASSWORD: 'cpd-pass', AZURE_KEY: 'az-key', AA_TOKEN: 'aa-token' };

function resolve(
  globals: GlobalOptions,
  env: Record<string, string | undefined> = {},
  config = configOf(PROFILES),
  cwd?: string,
): Promise<ResolvedProfile> {
  return resolveProfile({ globals, env: { ...ENV, ...env }, config, ...(cwd !== undefined ? { cwd } : {}) });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('choosing the profile', () => {
  it.each<[string, GlobalOptions, Record<string, string>, string]>([
    ['--profile beats TEXTGEN_PROFILE and default_profile', { profile: 'aa' }, { TEXTGEN_PROFILE: 'azure' }, 'aa'],
    ['TEXTGEN_PROFILE beats default_profile', {}, { TEXTGEN_PROFILE: 'azure' }, 'azure'],
    ['default_profile applies when nothing else names one', {}, {}, 'triton'],
    ['an empty TEXTGEN_PROFILE counts as unset', {}, { TEXTGEN_PROFILE: '' }, 'triton'],
  ])('%s', async (_case, globals, env, name) => {
    const profile = await resolve(globals, env, configOf(PROFILES, { default_profile: 'triton' }));
    expect(profile.name).toBe(name);
  });

  it.each<[string, GlobalOptions, Record<string, string>, LoadedConfig, string]>([
    [
      '--profile',
      { profile: 'nope' },
      {},
      configOf(PROFILES),
      'unknown profile "nope" (from --profile); known profiles: aa, azure, cpd, local, local-aa, local-azure, local-oip, local-openai, triton, wx, zen',
    ],
    [
      'TEXTGEN_PROFILE',
      {},
      { TEXTGEN_PROFILE: 'nope' },
      configOf({}),
      'unknown profile "nope" (from TEXTGEN_PROFILE); known profiles: local, local-aa, local-azure, local-oip, local-openai',
    ],
    [
      'default_profile',
      {},
      {},
      configOf({}, { default_profile: 'gone' }),
      'unknown profile "gone" (from default_profile); known profiles: local, local-aa, local-azure, local-oip, local-openai',
    ],
  ])(
    'an unknown name from %s is a usage error listing the known names',
    async (_case, globals, env, config, message) => {
      const error = await failure(resolve(globals, env, config));
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toBe(message);
    },
  );

  it('knows the built-in local profile', async () => {
    const profile = await resolve({ profile: 'local' });
    expect(profile).toEqual({
      name: 'local',
      provider: 'watsonx',
      url: '',
      auth: { type: 'none' },
      tls: { insecure: false },
      defaults: { model: 'ibm/granite-4-h-small' },
      settings: { spaceId: 'local-space' },
      timeoutMs: 300_000,
      retries: 2,
      local: true,
      serverParameters: [
        'include_stop_sequence',
        'min_new_tokens',
        'top_k',
        'random_seed',
        'repetition_penalty',
        'typical_p',
        'truncate_input_tokens',
        'length_penalty',
        'token_ranks',
        'moderations',
      ],
      secrets: [],
      source: 'built-in',
    });
  });

  it.each([
    ['local-azure', 'azure-openai'],
    ['local-openai', 'openai'],
    ['local-aa', 'aleph-alpha'],
    ['local-oip', 'open-inference'],
  ])('knows the built-in %s flavour of the local server', async (name, provider) => {
    expect(await resolve({ profile: name })).toMatchObject({
      name,
      provider,
      url: '',
      local: true,
      auth: { type: 'none' },
    });
  });

  it('lets the user define their own "local", which is then an ordinary profile', async () => {
    const profile = await resolve(
      { profile: 'local' },
      {},
      configOf({ local: { provider: 'openai', url: 'http://127.0.0.1:9000' } }),
    );
    expect(profile).toMatchObject({
      name: 'local',
      provider: 'openai',
      url: 'http://127.0.0.1:9000',
      local: false,
      source: '~/.config/textgen/config.yaml',
    });
  });

  it('keeps ambient credentials away from the built-in local profile but honours flags', async () => {
    const env = { TEXTGEN_API_KEY: 'cloud-key', TEXTGEN_TOKEN: undefined };
    expect((await resolve({ profile: 'local' }, env)).auth).toEqual({ type: 'none' });
    expect((await resolve({ profile: 'local', token: 't' })).auth).toMatchObject({ type: 'bearer', token: 't' });
  });

  it('serves another protocol from the built-in local profile when --provider says so', async () => {
    expect(await resolve({ profile: 'local', provider: 'azure-openai' })).toMatchObject({
      provider: 'azure-openai',
      local: true,
    });
  });

  it('stops treating local as the embedded server once a URL is given', async () => {
    expect(await resolve({ profile: 'local', url: 'http://127.0.0.1:8080' })).toMatchObject({
      url: 'http://127.0.0.1:8080',
      local: false,
    });
  });

  it('names the source file of a profile, with ~ for home', async () => {
    const config = configOf(PROFILES, { from: { wx: PROJECT_FILE } });
    expect((await resolve({ profile: 'wx' }, {}, config)).source).toBe('~/work/proj/.textgenrc.yaml');
  });

  it('lists profile names with local included, once', () => {
    expect(knownProfileNames(configOf({ b: PROFILES.wx!, a: PROFILES.aa!, local: PROFILES.triton! }))).toEqual([
      'a',
      'b',
      'local',
      'local-aa',
      'local-azure',
      'local-oip',
      'local-openai',
    ]);
  });
});

describe('ad hoc profiles', () => {
  it('are made from --url alone, defaulting to watsonx', async () => {
    const profile = await resolve({ url: 'https://eu-de.ml.cloud.ibm.com//' });
    expect(profile).toMatchObject({
      name: '(ad hoc)',
      provider: 'watsonx',
      url: 'https://eu-de.ml.cloud.ibm.com',
      auth: { type: 'none' },
      local: false,
      source: 'ad hoc',
    });
  });

  it('are made from --provider and --url with credentials', async () => {
    const profile = await resolve({ provider: 'azure-openai', url: 'https://r.openai.azure.com', apiKey: 'k1' });
    expect(profile).toMatchObject({ provider: 'azure-openai', auth: { type: 'api-key', key: 'k1' }, secrets: ['k1'] });
  });

  it('are made from TEXTGEN_PROVIDER and TEXTGEN_URL', async () => {
    const profile = await resolve({}, { TEXTGEN_PROVIDER: 'open-inference', TEXTGEN_URL: 'http://triton:8000/' });
    expect(profile).toMatchObject({ name: '(ad hoc)', provider: 'open-inference', url: 'http://triton:8000' });
  });

  it('win over default_profile: --url alone does not borrow the default profile', async () => {
    const profile = await resolve(
      { url: 'https://elsewhere.example' },
      {},
      configOf(PROFILES, { default_profile: 'wx' }),
    );
    expect(profile).toMatchObject({ name: '(ad hoc)', auth: { type: 'none' } });
    expect(profile.settings.spaceId).toBeUndefined();
  });

  it.each<[string, GlobalOptions, Record<string, string>, string]>([
    [
      '--provider without a URL',
      { provider: 'openai' },
      {},
      '--provider needs a URL: pass --url (or set TEXTGEN_URL), or pick a profile with --profile',
    ],
    [
      'TEXTGEN_PROVIDER without a URL',
      {},
      { TEXTGEN_PROVIDER: 'openai' },
      'TEXTGEN_PROVIDER needs a URL: pass --url (or set TEXTGEN_URL), or pick a profile with --profile',
    ],
    [
      'an unknown provider',
      { provider: 'bard', url: 'https://x' },
      {},
      '--provider must be one of watsonx, azure-openai, openai, aleph-alpha, open-inference, got "bard"',
    ],
    [
      'an unknown provider from the environment',
      {},
      { TEXTGEN_PROVIDER: 'bard', TEXTGEN_URL: 'https://x' },
      'TEXTGEN_PROVIDER must be one of watsonx, azure-openai, openai, aleph-alpha, open-inference, got "bard"',
    ],
    [
      'a URL that does not parse',
      { url: 'not a url' },
      {},
      '--url must be an http:// or https:// URL, got "not a url"',
    ],
    [
      'a URL with another scheme',
      {},
      { TEXTGEN_URL: 'ftp://x' },
      'TEXTGEN_URL must be an http:// or https:// URL, got "ftp://x"',
    ],
  ])('%s is a usage error', async (_case, globals, env, message) => {
    const error = await failure(resolve(globals, env));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(message);
  });
});

describe('with nothing selected', () => {
  it('is a usage error explaining the three ways out', async () => {
    const error = await failure(resolve({}, {}, configOf({})));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      'no profile selected: use --profile NAME, or --provider KIND --url URL, or create one with "textgen profiles add"',
    );
  });

  it('lists the configured profiles when there are some', async () => {
    const error = await failure(resolve({}, {}, configOf({ wx: PROFILES.wx!, aa: PROFILES.aa! })));
    expect(error.message).toBe(
      'no profile selected: use --profile NAME, or --provider KIND --url URL, or create one with "textgen profiles add" (configured profiles: aa, wx)',
    );
  });
});

describe('precedence: profile < environment < flags', () => {
  type Row = [
    field: string,
    globals: GlobalOptions,
    env: Record<string, string>,
    pick: (p: ResolvedProfile) => unknown,
    expected: unknown,
  ];
  const rows: Row[] = [
    ['url from the profile, trailing slash stripped', {}, {}, (p) => p.url, 'https://us-south.ml.cloud.ibm.com'],
    [
      'url from TEXTGEN_URL',
      {},
      { TEXTGEN_URL: 'https://eu-de.ml.cloud.ibm.com' },
      (p) => p.url,
      'https://eu-de.ml.cloud.ibm.com',
    ],
    [
      'url from --url',
      { url: 'https://jp-tok.ml.cloud.ibm.com/' },
      { TEXTGEN_URL: 'https://eu-de.ml.cloud.ibm.com' },
      (p) => p.url,
      'https://jp-tok.ml.cloud.ibm.com',
    ],
    ['provider from the profile', {}, {}, (p) => p.provider, 'watsonx'],
    // A token replaces the profile's IAM auth, which only watsonx understands.
    ['provider from TEXTGEN_PROVIDER', { token: 't' }, { TEXTGEN_PROVIDER: 'openai' }, (p) => p.provider, 'openai'],
    [
      'provider from --provider',
      { provider: 'aleph-alpha', token: 't' },
      { TEXTGEN_PROVIDER: 'openai' },
      (p) => p.provider,
      'aleph-alpha',
    ],
    ['api version from the profile', {}, {}, (p) => p.apiVersion, '2024-05-01'],
    [
      'api version from TEXTGEN_API_VERSION',
      {},
      { TEXTGEN_API_VERSION: '2023-05-29' },
      (p) => p.apiVersion,
      '2023-05-29',
    ],
    [
      'api version from --api-version',
      { apiVersion: '2025-01-01' },
      { TEXTGEN_API_VERSION: '2023-05-29' },
      (p) => p.apiVersion,
      '2025-01-01',
    ],
    ['timeout from the profile', {}, {}, (p) => p.timeoutMs, 60_000],
    ['timeout from --timeout', { timeout: '1500' }, {}, (p) => p.timeoutMs, 1500],
    ['retries from the profile', {}, {}, (p) => p.retries, 4],
    ['retries from --retries', { retries: '0' }, {}, (p) => p.retries, 0],
    ['insecure from --insecure', { insecure: true }, {}, (p) => p.tls.insecure, true],
    ['space id from the profile', {}, {}, (p) => p.settings.spaceId, 'space-1'],
  ];

  it.each(rows)('%s', async (_field, globals, env, pick, expected) => {
    expect(pick(await resolve({ profile: 'wx', ...globals }, env))).toBe(expected);
  });

  it.each<[string, GlobalOptions, unknown]>([
    ['timeout', {}, 300_000],
    ['retries', {}, 2],
  ])('%s falls back to the built-in default', async (field, globals, expected) => {
    const profile = await resolve({ profile: 'triton', ...globals });
    expect(field === 'timeout' ? profile.timeoutMs : profile.retries).toBe(expected);
    expect(profile.apiVersion).toBeUndefined();
  });

  it('lets --insecure=false turn off a profile insecure: true', async () => {
    expect((await resolve({ profile: 'cpd', insecure: false })).tls.insecure).toBe(false);
    expect((await resolve({ profile: 'cpd' })).tls.insecure).toBe(true);
  });

  it.each([
    ['--timeout', { timeout: '-1' }, '--timeout must be a non-negative integer, got "-1"'],
    ['--timeout', { timeout: '10s' }, '--timeout must be a non-negative integer, got "10s"'],
    ['--retries', { retries: '1.5' }, '--retries must be a non-negative integer, got "1.5"'],
    ['--retries', { retries: '' }, '--retries must be a non-negative integer, got ""'],
    ['--api-version', { apiVersion: '' }, '--api-version must not be empty'],
  ])('a bad %s is a usage error naming the flag', async (_flag, globals: GlobalOptions, message) => {
    const error = await failure(resolve({ profile: 'wx', ...globals }));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(message);
  });

  it('passes profile defaults through for the options layer', async () => {
    expect((await resolve({ profile: 'aa' })).defaults).toEqual({
      model: 'luminous-base',
      hosting: 'aleph-alpha',
      parameters: { max_new_tokens: 64 },
    });
  });

  it('is a usage error when a profile has no url and none is given', async () => {
    const error = await failure(resolve({ profile: 'bare' }, {}, configOf({ bare: { provider: 'openai' } })));
    expect(error.message).toBe('profile "bare" has no url');
    expect((error as UsageError).hint).toBe('add url: to it in ~/.config/textgen/config.yaml, or pass --url');
    expect(
      (await resolve({ profile: 'bare', url: 'https://x' }, {}, configOf({ bare: { provider: 'openai' } }))).url,
    ).toBe('https://x');
  });
});

describe('CA certificates', () => {
  it('resolves a profile ca_cert relative to the file the profile came from', async () => {
    const config = configOf(PROFILES, { from: { cpd: PROJECT_FILE } });
    expect((await resolve({ profile: 'cpd' }, {}, config)).tls.caCert).toBe(
      path.join(HOME, 'work', 'proj', 'cpd-ca.pem'),
    );
  });

  it('expands ~ in a profile ca_cert', async () => {
    const config = configOf({ c: { provider: 'watsonx', url: 'https://c', tls: { ca_cert: '~/certs/ca.pem' } } });
    expect((await resolve({ profile: 'c' }, {}, config)).tls.caCert).toBe(path.join(HOME, 'certs', 'ca.pem'));
  });

  it('takes --ca-cert over the profile, relative to the working directory', async () => {
    expect(
      (await resolve({ profile: 'cpd', caCert: 'other.pem' }, {}, configOf(PROFILES), '/srv/run')).tls.caCert,
    ).toBe('/srv/run/other.pem');
  });
});

describe('credentials', () => {
  type Row = [name: string, globals: GlobalOptions, env: Record<string, string | undefined>, expected: unknown];
  const rows: Row[] = [
    [
      'a watsonx profile reads its IAM key from the named variable',
      { profile: 'wx' },
      {},
      { type: 'iam', apikey: 'wx-key', iamUrl: IAM },
    ],
    [
      'TEXTGEN_API_KEY replaces the profile key',
      { profile: 'wx' },
      { TEXTGEN_API_KEY: 'env-key' },
      { type: 'iam', apikey: 'env-key', iamUrl: IAM },
    ],
    [
      '--api-key beats TEXTGEN_API_KEY',
      { profile: 'wx', apiKey: 'flag-key' },
      { TEXTGEN_API_KEY: 'env-key' },
      { type: 'iam', apikey: 'flag-key', iamUrl: IAM },
    ],
    [
      '--token beats TEXTGEN_API_KEY and means bearer',
      { profile: 'wx', token: 'tok' },
      { TEXTGEN_API_KEY: 'env-key' },
      { type: 'bearer', token: 'tok' },
    ],
    [
      'TEXTGEN_TOKEN means bearer',
      { profile: 'wx' },
      { TEXTGEN_TOKEN: 'tok' },
      { type: 'bearer', token: 'tok', tokenEnv: 'TEXTGEN_TOKEN' },
    ],
    [
      'TEXTGEN_IAM_URL overrides the IAM endpoint',
      { profile: 'wx' },
      { TEXTGEN_IAM_URL: 'http://127.0.0.1:9/token' },
      { type: 'iam', apikey: 'wx-key', iamUrl: 'http://127.0.0.1:9/token' },
    ],
    [
      'a key for a cpd profile replaces its password',
      { profile: 'cpd', apiKey: 'k' },
      { CPD_PASSWORD: undefined },
      { type: 'cpd', username: 'admin', apikey: 'k' },
    ],
    [
      'a key for a zenapikey profile replaces its key',
      { profile: 'zen' },
      { TEXTGEN_API_KEY: 'k' },
      { type: 'zenapikey', username: 'admin', apikey: 'k' },
    ],
    [
      'a cpd profile reads its password',
      { profile: 'cpd' },
      {},
      { type: 'cpd', username: 'admin', password: 'cpd-pass' },
    ],
    [
      'a zenapikey profile uses its literal key',
      { profile: 'zen' },
      {},
      { type: 'zenapikey', username: 'admin', apikey: 'zen-literal' },
    ],
    [
      'an azure profile reads its key',
      { profile: 'azure' },
      {},
      { type: 'api-key', key: 'az-key', keyEnv: 'AZURE_KEY' },
    ],
    [
      'a key for azure-openai means an api-key header',
      { profile: 'azure', apiKey: 'k' },
      {},
      { type: 'api-key', key: 'k' },
    ],
    [
      'a bearer profile remembers its variable',
      { profile: 'aa' },
      {},
      { type: 'bearer', token: 'aa-token', tokenEnv: 'AA_TOKEN' },
    ],
    ['a key for aleph-alpha means bearer', { profile: 'aa', apiKey: 'k' }, {}, { type: 'bearer', token: 'k' }],
    [
      'a key for open-inference means bearer',
      { profile: 'triton' },
      { TEXTGEN_API_KEY: 'k' },
      { type: 'bearer', token: 'k', tokenEnv: 'TEXTGEN_API_KEY' },
    ],
    [
      'a key for openai means bearer',
      { provider: 'openai', url: 'https://api.openai.com/v1', apiKey: 'k' },
      {},
      { type: 'bearer', token: 'k' },
    ],
    ['a profile without auth has none', { profile: 'triton' }, {}, { type: 'none' }],
    [
      'an ad hoc watsonx key means IAM',
      { url: 'https://x.example' },
      { TEXTGEN_API_KEY: 'k' },
      { type: 'iam', apikey: 'k', iamUrl: IAM },
    ],
  ];

  it.each(rows)('%s', async (_name, globals, env, expected) => {
    expect((await resolve(globals, env)).auth).toEqual(expected);
  });

  it('uses the profile iam_url, below TEXTGEN_IAM_URL', async () => {
    const config = configOf({
      w: {
        provider: 'watsonx',
        url: 'https://w',
        auth: { type: 'iam', apikey: 'k', iam_url: 'https://iam.test/identity/token' },
      },
    });
    expect((await resolve({ profile: 'w' }, {}, config)).auth).toEqual({
      type: 'iam',
      apikey: 'k',
      iamUrl: 'https://iam.test/identity/token',
    });
    expect((await resolve({ profile: 'w', apiKey: 'k2' }, {}, config)).auth).toEqual({
      type: 'iam',
      apikey: 'k2',
      iamUrl: 'https://iam.test/identity/token',
    });
    expect((await resolve({ profile: 'w' }, { TEXTGEN_IAM_URL: 'http://127.0.0.1:1/t' }, config)).auth).toMatchObject({
      iamUrl: 'http://127.0.0.1:1/t',
    });
  });

  it('keeps the token variable name for --dry-run placeholders', async () => {
    expect(bearerTokenEnv((await resolve({ profile: 'aa' })).auth)).toBe('AA_TOKEN');
    expect(bearerTokenEnv((await resolve({ profile: 'aa', token: 't' })).auth)).toBeUndefined();
  });

  it.each<[string, string, Record<string, string | undefined>, string]>([
    [
      'wx',
      'WATSONX_APIKEY',
      { WATSONX_APIKEY: undefined },
      'profile "wx" reads its API key from WATSONX_APIKEY, which is not set',
    ],
    [
      'cpd',
      'CPD_PASSWORD',
      { CPD_PASSWORD: '' },
      'profile "cpd" reads its password from CPD_PASSWORD, which is not set',
    ],
    ['aa', 'AA_TOKEN', { AA_TOKEN: undefined }, 'profile "aa" reads its token from AA_TOKEN, which is not set'],
    [
      'azure',
      'AZURE_KEY',
      { AZURE_KEY: undefined },
      'profile "azure" reads its API key from AZURE_KEY, which is not set',
    ],
  ])('profile %s with %s unset is an authentication error (exit 3)', async (name, _variable, env, message) => {
    const error = await failure(resolve({ profile: name }, env));
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(3);
    expect(error.message).toBe(message);
  });

  it('does not need the profile variable when a flag supplies the credential', async () => {
    expect((await resolve({ profile: 'wx', apiKey: 'k' }, { WATSONX_APIKEY: undefined })).auth).toMatchObject({
      apikey: 'k',
    });
  });

  it.each<[string, GlobalOptions, Record<string, string>, string]>([
    [
      '--api-key with --token',
      { profile: 'wx', apiKey: 'a', token: 't' },
      {},
      '--api-key and --token cannot be used together: give one',
    ],
    [
      'both variables',
      { profile: 'wx' },
      { TEXTGEN_API_KEY: 'a', TEXTGEN_TOKEN: 't' },
      'TEXTGEN_API_KEY and TEXTGEN_TOKEN are both set: unset one, or pass --api-key or --token',
    ],
    ['an empty --api-key', { profile: 'wx', apiKey: '' }, {}, '--api-key must not be empty'],
    [
      'a bad TEXTGEN_IAM_URL',
      { profile: 'wx' },
      { TEXTGEN_IAM_URL: 'iam' },
      'TEXTGEN_IAM_URL must be an http:// or https:// URL, got "iam"',
    ],
  ])('%s is a usage error', async (_case, globals, env, message) => {
    const error = await failure(resolve(globals, env));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(message);
  });

  it('lets a flag settle it when both variables are set', async () => {
    expect(
      (await resolve({ profile: 'wx', token: 'f' }, { TEXTGEN_API_KEY: 'a', TEXTGEN_TOKEN: 't' })).auth,
    ).toMatchObject({ type: 'bearer', token: 'f' });
  });

  it.each<[string, GlobalOptions, string]>([
    [
      'IBM auth on another provider',
      { profile: 'wx', provider: 'openai' },
      'profile "wx": auth type iam is for watsonx, not openai',
    ],
    [
      'an api-key header on watsonx',
      { profile: 'azure', provider: 'watsonx' },
      'profile "azure": watsonx takes no api-key header',
    ],
  ])('%s is a usage error', async (_case, globals, message) => {
    const error = await failure(resolve(globals));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(message);
  });

  it.each<[string, GlobalOptions, Record<string, string>, string[]]>([
    ['an IAM key', { profile: 'wx' }, {}, ['wx-key']],
    ['a CPD password', { profile: 'cpd' }, {}, ['cpd-pass']],
    [
      'a Zen key and the header value made from it',
      { profile: 'zen' },
      {},
      ['zen-literal', Buffer.from('admin:zen-literal').toString('base64')],
    ],
    ['a token', { profile: 'aa' }, {}, ['aa-token']],
    ['nothing', { profile: 'triton' }, {}, []],
  ])('collects %s into secrets', async (_case, globals, env, secrets) => {
    expect((await resolve(globals, env)).secrets).toEqual(secrets);
  });
});
