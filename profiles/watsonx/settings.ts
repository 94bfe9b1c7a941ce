/**
 * watsonx's own profile settings (ResolvedProfile.settings): the space or project a request runs in. The environment
 * wins over the profile, as everywhere (docs/design.md §2).
 */
import type { ResolvedProfile, SettingsSources } from '../../src/contract/profile.js';

/** The space of the built-in `local` profile and of any watsonx profile served in-process. */
export const LOCAL_SPACE_ID = 'local-space';

export type WatsonxSettings = {
  spaceId?: string;
  projectId?: string;
  /** The scope options gave a space and a project both (IBM's examples do): calls that take both send both. */
  bothScopes?: boolean;
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function resolveWatsonxSettings(from: SettingsSources): WatsonxSettings {
  const spaceId = from.env('TEXTGEN_SPACE_ID') ?? text(from.entries.space_id);
  const projectId = from.env('TEXTGEN_PROJECT_ID') ?? text(from.entries.project_id);
  const settings: WatsonxSettings = {};
  // A profile served in-process needs no real space; it gets the one the built-in local profile uses.
  if (spaceId !== undefined) settings.spaceId = spaceId;
  else if (from.local && projectId === undefined) settings.spaceId = LOCAL_SPACE_ID;
  if (projectId !== undefined) settings.projectId = projectId;
  return settings;
}

/** The settings resolveWatsonxSettings made for this profile. */
export function watsonxSettings(profile: ResolvedProfile): WatsonxSettings {
  return profile.settings as WatsonxSettings;
}
