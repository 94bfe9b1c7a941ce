/**
 * A profile's `engine:` settings (docs/local-model.md): a profile with an engine and no url is served in-process with
 * that engine; the llama engine needs model_path, resolved against the file that holds the profile (or ~); its
 * settings without `engine: llama` are a usage error; the served name becomes the default model.
 */
import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../../src/config/load.js';
import { resolveProfile } from '../../src/config/resolve.js';
import type { ProfileConfig } from '../../src/config/schema.js';
import { parseConfigFile } from '../../src/config/schema.js';
import { UsageError } from '../../src/contract/errors.js';

const HOME = '/home/u';
const FILE = `${HOME}/proj/.textgenrc.yaml`;

function resolve(profile: ProfileConfig, globals: Record<string, string> = {}) {
  const config: LoadedConfig = {
    profiles: { mine: profile },
    sources: { profiles: { mine: FILE }, userFile: `${HOME}/.config/textgen/config.yaml` },
  };
  return resolveProfile({ globals: { profile: 'mine', ...globals }, env: { HOME }, config, cwd: '/elsewhere' });
}

describe('engine: settings in a profile', () => {
  it('engine: llama with no url is local, with the model resolved against the profile file', async () => {
    const p = await resolve({ provider: 'watsonx', engine: 'llama', model_path: 'models/m.gguf', threads: 2 });
    expect(p.local).toBe(true);
    expect(p.url).toBe('');
    expect(p.engine).toEqual({
      kind: 'llama',
      modelPath: `${HOME}/proj/models/m.gguf`,
      modelName: 'm',
      threads: 2,
      contextSize: undefined,
      gpu: undefined,
      parallel: undefined,
    });
    expect(p.defaults.model).toBe('m');
    expect(p.settings.spaceId).toBe('local-space');
  });

  it('~ is the home folder; model_name names the served model; defaults.model wins as the default', async () => {
    const p = await resolve({
      provider: 'openai',
      engine: 'llama',
      model_path: '~/m/x.GGUF',
      model_name: 'qwen',
      defaults: { model: 'other' },
    });
    expect(p.engine).toMatchObject({ modelPath: `${HOME}/m/x.GGUF`, modelName: 'qwen' });
    expect(p.defaults.model).toBe('other');
  });

  it('with a url (flag or profile) the engine is not started: the profile talks to that server', async () => {
    const p = await resolve({ provider: 'watsonx', engine: 'llama', model_path: 'm.gguf' }, { url: 'http://h:1' });
    expect(p.local).toBe(false);
    expect(p.engine).toBeUndefined();
  });

  it('engine: llama without model_path, and llama settings without engine, are usage errors', async () => {
    await expect(resolve({ provider: 'watsonx', engine: 'llama' })).rejects.toThrow(
      /profiles\.mine\.model_path .*is missing: engine: llama needs the GGUF model file/,
    );
    await expect(resolve({ provider: 'watsonx', url: 'http://h:1', model_path: 'm.gguf' })).rejects.toBeInstanceOf(
      UsageError,
    );
  });

  it('engine: deterministic is the built-in engine, in-process', async () => {
    const p = await resolve({ provider: 'aleph-alpha', engine: 'deterministic' });
    expect(p).toMatchObject({ local: true, engine: { kind: 'deterministic' } });
  });

  it('the schema checks the values', () => {
    expect(() =>
      parseConfigFile({ profiles: { x: { provider: 'watsonx', engine: 'gpt', gpu: 'on', threads: 0 } } }, 'f.yaml'),
    ).toThrow(/engine[\s\S]*gpu[\s\S]*threads|engine[\s\S]*threads[\s\S]*gpu/);
  });
});
