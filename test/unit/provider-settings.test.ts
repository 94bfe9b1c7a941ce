/**
 * ResolvedProfile carries what only one provider reads in its `settings`, resolved by that provider's adapter: the
 * core (src/ outside the emulator, commands/) names no watsonx, Azure or Aleph Alpha field, and each provider's
 * precedence (environment and flags over the profile) still holds.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAlephAlphaSettings } from '../../profiles/aleph-alpha/settings.js';
import { resolveAzureSettings } from '../../profiles/openai/settings.js';
import { resolveWatsonxSettings } from '../../profiles/watsonx/settings.js';
import type { SettingsSources } from '../../src/contract/profile.js';

const ROOT = resolve(import.meta.dirname, '../..');

function sources(files: string[], dir: string): string[] {
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) {
      if (path !== join('src', 'emulator')) sources(files, path);
    } else if (name.endsWith('.ts')) files.push(path);
  }
  return files;
}

const from = (over: Partial<SettingsSources> = {}): SettingsSources => ({
  entries: {},
  env: () => undefined,
  apiVersionFlag: undefined,
  embedded: false,
  local: false,
  ...over,
});

describe('provider settings', () => {
  it('the core names no provider-specific field of a profile', () => {
    const named = /\b(?:spaceId|projectId|chatApiVersion)\b|\bprofile\.(?:streaming|chat)\b/;
    const offenders = [...sources([], 'src'), ...sources([], 'commands')].filter((file) =>
      named.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(offenders.map((f) => relative('.', f))).toEqual([]);
  });

  it('watsonx: the environment over the profile; a profile served in-process gets the local space', () => {
    const env = (vars: Record<string, string>) => (name: string) => vars[name];
    expect(resolveWatsonxSettings(from({ entries: { space_id: 's1' } }))).toEqual({ spaceId: 's1' });
    expect(resolveWatsonxSettings(from({ entries: { space_id: 's1' }, env: env({ TEXTGEN_SPACE_ID: 's2' }) }))).toEqual(
      { spaceId: 's2' },
    );
    expect(resolveWatsonxSettings(from({ local: true }))).toEqual({ spaceId: 'local-space' });
    expect(resolveWatsonxSettings(from({ local: true, entries: { project_id: 'p' } }))).toEqual({ projectId: 'p' });
  });

  it("Azure: --api-version, then TEXTGEN_API_VERSION, then the profile's chat_api_version", () => {
    const entries = { chat_api_version: 'profile' };
    expect(resolveAzureSettings(from({ entries }))).toEqual({ chatApiVersion: 'profile' });
    expect(resolveAzureSettings(from({ entries, env: () => 'env' }))).toEqual({ chatApiVersion: 'env' });
    expect(resolveAzureSettings(from({ entries, env: () => 'env', apiVersionFlag: 'flag' }))).toEqual({
      chatApiVersion: 'flag',
    });
  });

  it('Aleph Alpha: streaming and chat from the profile; the embedded server streams', () => {
    expect(resolveAlephAlphaSettings(from())).toEqual({ streaming: false });
    expect(resolveAlephAlphaSettings(from({ entries: { streaming: true, chat: true } }))).toEqual({
      streaming: true,
      chat: true,
    });
    expect(resolveAlephAlphaSettings(from({ embedded: true }))).toEqual({ streaming: true });
  });
});
