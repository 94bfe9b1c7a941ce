/**
 * Azure OpenAI's own profile settings (ResolvedProfile.settings): the `api-version` of chat requests. Chat takes the
 * same flag and variable as completions, but a profile's api_version is for completions: its chat one is
 * chat_api_version (docs/protocols/chat.md).
 */
import type { ResolvedProfile, SettingsSources } from '../../src/contract/profile.js';

export type AzureSettings = { chatApiVersion?: string };

export function resolveAzureSettings(from: SettingsSources): AzureSettings {
  const own = from.entries.chat_api_version;
  const chatApiVersion =
    from.apiVersionFlag ?? from.env('TEXTGEN_API_VERSION') ?? (typeof own === 'string' ? own : undefined);
  return chatApiVersion !== undefined ? { chatApiVersion } : {};
}

/** The settings resolveAzureSettings made for this profile. */
export function azureSettings(profile: ResolvedProfile): AzureSettings {
  return profile.settings as AzureSettings;
}
