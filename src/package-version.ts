import { readFileSync } from 'node:fs';

/** The version in package.json: two levels up from dist/src/main.js, one from src/main.ts (tests). */
export function packageVersion(): string {
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'textgen' && pkg.version) return pkg.version;
    } catch {
      // Try the next candidate.
    }
  }
  return '0.0.0';
}
