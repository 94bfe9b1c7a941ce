import type { ResolvedProfile } from '../../../src/contract/profile.js';
import { UsageError } from '../../../src/contract/errors.js';
import { watsonxSettings } from '../settings.js';

/**
 * watsonx model calls (foundation-model generation, embeddings, tokenization) run in a project or a deployment
 * space: the body carries exactly one of `project_id` / `space_id`. `what` names the call in the error.
 */
export function watsonxScope(profile: ResolvedProfile, what: string): { project_id: string } | { space_id: string } {
  const { projectId, spaceId } = watsonxSettings(profile);
  if (projectId) return { project_id: projectId };
  if (spaceId) return { space_id: spaceId };
  throw new UsageError(`profile "${profile.name}" needs space_id or project_id for ${what}`, {
    hint: 'set space_id or project_id in the profile, or TEXTGEN_SPACE_ID / TEXTGEN_PROJECT_ID',
  });
}
