/** Profile names for shell completion: configured ones plus the built-in local ones. */
import { loadConfig } from '../config/load.js';
import { knownProfileNames, LOCAL_PROFILES } from '../config/resolve.js';

export interface ProfileNamesOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  configPath?: string;
}

/**
 * Never throws and never warns: a completion script must not print errors into the user's prompt.
 * When the config cannot be read, the built-in profiles are still valid names, so those are returned.
 */
export async function profileNames(opts: ProfileNamesOptions): Promise<string[]> {
  try {
    // Pressing Tab in a repository must not run its code: a textgen.config.js is left out.
    const config = await loadConfig({ ...opts, warn: () => {}, runCode: false });
    return knownProfileNames(config);
  } catch {
    return Object.keys(LOCAL_PROFILES).sort();
  }
}
