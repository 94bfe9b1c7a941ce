import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { fieldPath } from '../../src/config/schema.js';
import { UsageError } from '../../src/contract/errors.js';

let home: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'textgen-schema-'));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function errorFor(file: string, content: string): Promise<UsageError> {
  const full = path.join(home, file);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, content, { mode: 0o600 });
  const error = await loadConfig({ cwd: home, env: { HOME: home }, warn: () => {} }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

const USER = '.config/textgen/config.yaml';
const U = '~/.config/textgen/config.yaml';
const wx = (lines: string) => `profiles:\n  wx:\n    provider: watsonx\n    url: https://x.example\n${lines}`;

describe('a bad user file is a usage error naming the file and the field', () => {
  const cases: Array<[name: string, content: string, message: string]> = [
    ['YAML syntax error', 'a: b: c\n', `${U}: line 1, column 4: Nested mappings are not allowed in compact mappings`],
    ['unclosed quote', 'profiles:\n  wx:\n    provider: "watsonx\n', `${U}: line 4, column 1: Missing closing "quote`],
    ['duplicate key', 'profiles: {}\nprofiles: {}\n', `${U}: line 2, column 1: Map keys must be unique`],
    [
      'unknown top-level key',
      'defaul_profile: wx\n',
      `${U}: defaul_profile: unknown field (did you mean default_profile?)`,
    ],
    ['unknown profile key', wx('    urll: https://y\n'), `${U}: profiles.wx.urll: unknown field (did you mean url?)`],
    [
      // The flags' did-you-mean (src/contract/did-you-mean.ts): case, "-" and "_" ignored, the typo's length sets the bound.
      'unknown profile key, one did-you-mean with the flags',
      wx('    authxx: 1\n'),
      `${U}: profiles.wx.authxx: unknown field (did you mean auth?)`,
    ],
    [
      'unknown auth key',
      wx('    auth: { type: iam, apikey_evn: K }\n'),
      `${U}: profiles.wx.auth.apikey_evn: unknown field (did you mean apikey_env?)`,
    ],
    [
      'unknown tls key',
      wx('    tls: { insecur: true }\n'),
      `${U}: profiles.wx.tls.insecur: unknown field (did you mean insecure?)`,
    ],
    ['unknown key far from any field', wx('    colour: red\n'), `${U}: profiles.wx.colour: unknown field`],
    [
      'bad provider',
      'profiles:\n  wx: { provider: watson, url: "https://x" }\n',
      `${U}: profiles.wx.provider: expected one of watsonx, azure-openai, openai, aleph-alpha, open-inference`,
    ],
    [
      'missing provider',
      'profiles:\n  wx: { url: "https://x" }\n',
      `${U}: profiles.wx.provider: is required (one of watsonx, azure-openai, openai, aleph-alpha, open-inference)`,
    ],
    [
      'bad auth type',
      wx('    auth: { type: oauth }\n'),
      `${U}: profiles.wx.auth.type: expected one of iam, cpd, zenapikey, bearer, api-key, none`,
    ],
    [
      'missing auth type',
      wx('    auth: { apikey_env: K }\n'),
      `${U}: profiles.wx.auth.type: is required (one of iam, cpd, zenapikey, bearer, api-key, none)`,
    ],
    ['auth as a string', wx('    auth: iam\n'), `${U}: profiles.wx.auth: expected a mapping, got a string`],
    ['iam without a key', wx('    auth: { type: iam }\n'), `${U}: profiles.wx.auth: needs one of apikey_env, apikey`],
    [
      'iam with a key given twice',
      wx('    auth: { type: iam, apikey_env: K, apikey: k }\n'),
      `${U}: profiles.wx.auth.apikey: conflicts with apikey_env: give exactly one of apikey_env, apikey`,
    ],
    [
      'cpd with key and password',
      wx('    auth: { type: cpd, username: u, apikey_env: K, password_env: P }\n'),
      `${U}: profiles.wx.auth.password_env: conflicts with apikey_env: give exactly one of apikey_env, apikey, password_env, password`,
    ],
    [
      'cpd without username',
      wx('    auth: { type: cpd, apikey_env: K }\n'),
      `${U}: profiles.wx.auth.username: is required`,
    ],
    [
      'zenapikey without key',
      wx('    auth: { type: zenapikey, username: u }\n'),
      `${U}: profiles.wx.auth: needs one of apikey_env, apikey`,
    ],
    [
      'bearer without token',
      wx('    auth: { type: bearer }\n'),
      `${U}: profiles.wx.auth: needs one of token_env, token`,
    ],
    ['api-key without key', wx('    auth: { type: api-key }\n'), `${U}: profiles.wx.auth: needs one of key_env, key`],
    [
      'none with extra fields',
      wx('    auth: { type: none, token_env: T }\n'),
      `${U}: profiles.wx.auth.token_env: unknown field`,
    ],
    [
      'env name that is not a variable name',
      wx('    auth: { type: iam, apikey_env: MY-KEY }\n'),
      `${U}: profiles.wx.auth.apikey_env: must be an environment variable name (letters, digits and _)`,
    ],
    [
      'iam_url that is not a URL',
      wx('    auth: { type: iam, apikey_env: K, iam_url: iam.local }\n'),
      `${U}: profiles.wx.auth.iam_url: must be an http:// or https:// URL`,
    ],
    [
      'url with another scheme',
      'profiles:\n  wx: { provider: watsonx, url: "ftp://x" }\n',
      `${U}: profiles.wx.url: must be an http:// or https:// URL`,
    ],
    ['timeout as text', wx('    timeout: 10s\n'), `${U}: profiles.wx.timeout: expected a number, got a string`],
    ['fractional retries', wx('    retries: 1.5\n'), `${U}: profiles.wx.retries: expected an integer, got a number`],
    ['negative retries', wx('    retries: -1\n'), `${U}: profiles.wx.retries: must be at least 0`],
    ['empty api_version', wx('    api_version: ""\n'), `${U}: profiles.wx.api_version: must not be empty`],
    [
      'insecure as text',
      wx('    tls: { insecure: "yes" }\n'),
      `${U}: profiles.wx.tls.insecure: expected a boolean, got a string`,
    ],
    [
      'parameters as a list',
      wx('    defaults: { parameters: [1] }\n'),
      `${U}: profiles.wx.defaults.parameters: expected a mapping, got a list`,
    ],
    [
      'unknown defaults key',
      wx('    defaults: { modle: x }\n'),
      `${U}: profiles.wx.defaults.modle: unknown field (did you mean model?)`,
    ],
    ['profiles as a list', 'profiles: [wx]\n', `${U}: profiles: expected a mapping, got a list`],
    ['a list at the top', '- wx\n', `${U}: (top level): expected a mapping, got a list`],
    [
      'profile name with a space',
      'profiles:\n  "my wx": { provider: openai, url: "https://x" }\n',
      `${U}: profiles["my wx"]: profile names use letters, digits, ".", "_" and "-", starting with a letter or digit`,
    ],
  ];

  it.each(cases)('%s', async (_name, content, message) => {
    const error = await errorFor(USER, content);
    expect(error.message).toBe(message);
    expect(error.exitCode).toBe(2);
  });

  it('lists every bad field, one line each', async () => {
    const error = await errorFor(USER, wx('    timeout: slow\n    retries: -2\n'));
    expect(error.message.split('\n')).toEqual([
      `${U}: profiles.wx.timeout: expected a number, got a string`,
      `${U}: profiles.wx.retries: must be at least 0`,
    ]);
  });

  it('never echoes a secret value in a validation message', async () => {
    const error = await errorFor(USER, wx('    auth: { type: iam, apikey: s3cr3t-value, apikey_env: K }\n'));
    expect(error.message).not.toContain('s3cr3t-value');
  });
});

describe('a bad project file is named by its own path', () => {
  it.each([
    [
      '.textgenrc.json',
      '{"profiles": {"p": {"provider": "openai", "url": "https://x",}}}',
      '~/.textgenrc.json: line 1, column 62: invalid JSON: Expected double-quoted property name',
    ],
    ['.textgenrc.json', '{"profiles": ', '~/.textgenrc.json: invalid JSON: Unexpected end of JSON input'],
    [
      '.textgenrc.yml',
      'profiles:\n  p: { provider: openai, url: "https://x", timout: 5 }\n',
      '~/.textgenrc.yml: profiles.p.timout: unknown field (did you mean timeout?)',
    ],
    [
      'package.json',
      '{"textgen": {"profiles": {"p": {"provider": "nope", "url": "https://x"}}}}',
      '~/package.json: profiles.p.provider: expected one of watsonx, azure-openai, openai, aleph-alpha, open-inference',
    ],
    ['textgen.config.mjs', 'export default {;\n', '~/textgen.config.mjs: cannot load: '],
  ])('%s', async (file, content, message) => {
    const error = await errorFor(file, content);
    expect(error.message.startsWith(message)).toBe(true);
  });
});

describe('fieldPath', () => {
  it.each([
    [['profiles', 'wx', 'auth', 'type'], 'profiles.wx.auth.type'],
    [['profiles', 'my.wx', 'url'], 'profiles["my.wx"].url'],
    [
      ['profiles', 'wx', 'defaults', 'parameters', 'stop_sequences', 0],
      'profiles.wx.defaults.parameters.stop_sequences[0]',
    ],
  ] as const)('writes %j as %s', (p, expected) => {
    expect(fieldPath(p)).toBe(expected);
  });
});
