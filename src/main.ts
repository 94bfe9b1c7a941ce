import { readFileSync } from 'node:fs';
import type { ProcessLike } from './context-factory.js';

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

export interface MainOptions {
  /** Install SIGINT handling (the real process only; tests run in-process without it). */
  handleSignals?: boolean;
}

/**
 * Entry point: returns the exit code instead of exiting, so the CLI stays importable (zx/np style).
 * `--version` is answered before anything else is imported: it is the cold-start benchmark.
 */
export async function main(argv: string[], io: ProcessLike, options: MainOptions = {}): Promise<number> {
  if (argv.length === 1 && argv[0] === '--version') {
    io.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const { runCli } = await import('./cli.js');
  return runCli(argv, io, options);
}
