/**
 * Aleph Alpha's own profile settings (ResolvedProfile.settings): whether the server streams (API 1.19+, `streaming:
 * true`) and whether it has the chat route (`chat: true`, PhariaInference). The embedded server does both.
 */
import type { ResolvedProfile, SettingsSources } from '../../src/contract/profile.js';

export type AlephAlphaSettings = { streaming: boolean; chat?: boolean };

export function resolveAlephAlphaSettings(from: SettingsSources): AlephAlphaSettings {
  // The built-in profiles keep the embedded server's abilities with --url too (a `serve` elsewhere).
  const settings: AlephAlphaSettings = { streaming: from.embedded ? true : from.entries.streaming === true };
  if (from.entries.chat === true) settings.chat = true;
  return settings;
}

/** The settings resolveAlephAlphaSettings made for this profile. */
export function alephAlphaSettings(profile: ResolvedProfile): AlephAlphaSettings {
  return profile.settings as AlephAlphaSettings;
}
