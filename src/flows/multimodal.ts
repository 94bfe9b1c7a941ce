/** The adapter's builder of multimodal prompts (`--image`, `--prompt-json`, `--document`), or a usage error naming who has one. */
import type { ResolvedProfile } from '../contract/profile.js';
import { UsageError } from '../contract/errors.js';
import { adapterFor, kindsWith } from '../../profiles/registry.js';
import type { MultimodalPrompts } from '../contract/adapter.js';

export async function promptsFor(
  profile: ResolvedProfile,
  flags = '--image and --prompt-json',
): Promise<MultimodalPrompts> {
  const load = adapterFor(profile.provider).prompts;
  if (load) return load();
  const owners = kindsWith((adapter) => adapter.prompts !== undefined).map((kind) => adapterFor(kind).displayName);
  throw new UsageError(
    `${flags} build ${owners.join(' or ')} prompts; profile "${profile.name}" is ${profile.provider}`,
  );
}
