import { readFileSync } from 'node:fs';

/** The version in package.json: one level up from src/version.ts (tests) and from the bundles in dist/ (scripts/bundle.mjs). */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      name?: string;
      version?: string;
    };
    if (pkg.name === 'textgen' && pkg.version) return pkg.version;
  } catch {
    // Fall through: a copy without its package.json still runs.
  }
  return '0.0.0';
}
