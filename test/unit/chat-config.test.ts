/** The profile settings chat reads: `chat` (Aleph Alpha servers with the route) and the chat api-version precedence. */
import { describe, expect, test } from 'vitest';
import type { LoadedConfig } from '../../src/config/load.js';
import { resolveProfile } from '../../src/config/resolve.js';
import type { ProfileConfig } from '../../src/config/schema.js';
import { parseConfigFile } from '../../src/config/schema.js';

function configOf(profiles: Record<string, ProfileConfig>): LoadedConfig {
  return {
    profiles,
    sources: {
      profiles: Object.fromEntries(Object.keys(profiles).map((n) => [n, '/u/config.yaml'])),
      userFile: '/u/config.yaml',
    },
  };
}

const config = configOf({
  az: {
    provider: 'azure-openai',
    url: 'https://r.example',
    api_version: '2022-03-01-preview',
    chat_api_version: '2024-06-01',
    auth: { type: 'none' },
  },
  az2: {
    provider: 'azure-openai',
    url: 'https://r.example',
    api_version: '2022-03-01-preview',
    auth: { type: 'none' },
  },
  aa: { provider: 'aleph-alpha', url: 'https://aa.example', chat: true, auth: { type: 'none' } },
  aaOld: { provider: 'aleph-alpha', url: 'https://aa.example', auth: { type: 'none' } },
});

const resolve = (profile: string, extra: { apiVersion?: string; env?: Record<string, string> } = {}) =>
  resolveProfile({
    globals: { profile, ...(extra.apiVersion ? { apiVersion: extra.apiVersion } : {}) },
    env: extra.env ?? {},
    config,
  });

describe('chat settings of a profile', () => {
  test("chat_api_version is the profile's chat version; api_version stays the completions version", async () => {
    const p = await resolve('az');
    expect(p.apiVersion).toBe('2022-03-01-preview');
    expect(p.settings.chatApiVersion).toBe('2024-06-01');
    expect((await resolve('az2')).settings.chatApiVersion).toBeUndefined();
  });

  test('--api-version and TEXTGEN_API_VERSION set both, the flag first', async () => {
    expect((await resolve('az', { apiVersion: '2025-01-01-preview' })).settings.chatApiVersion).toBe(
      '2025-01-01-preview',
    );
    expect((await resolve('az', { env: { TEXTGEN_API_VERSION: '2024-09-01-preview' } })).settings.chatApiVersion).toBe(
      '2024-09-01-preview',
    );
  });

  test('chat: true marks an Aleph Alpha server with the chat route; the built-in profiles have it', async () => {
    expect((await resolve('aa')).settings.chat).toBe(true);
    expect((await resolve('aaOld')).settings.chat).toBeUndefined();
    expect((await resolve('local-aa')).settings.chat).toBe(true);
  });

  test('the config file schema knows both fields and checks their types', () => {
    expect(() => parseConfigFile({ profiles: { x: { provider: 'aleph-alpha', chat: 'yes' } } }, 'c.yaml')).toThrow(
      /chat: expected a boolean/,
    );
    expect(() =>
      parseConfigFile({ profiles: { x: { provider: 'azure-openai', chat_api_version: '' } } }, 'c.yaml'),
    ).toThrow(/chat_api_version: must not be empty/);
  });
});
