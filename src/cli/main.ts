import type { ProcessLike } from './context-factory.js';
import type { MainOptions } from './selection.js';
import { packageVersion } from '../version.js';

export { packageVersion };

export type { MainOptions } from './selection.js';

/**
 * Entry point: returns the exit code instead of exiting, so the CLI stays importable (zx/np style).
 * `--version` is answered before anything else is imported: it is the cold-start benchmark.
 * bin/textgen.js runs the same steps from the bundles (src/cli/launch/launch.ts).
 */
export async function main(argv: string[], io: ProcessLike, options: MainOptions = {}): Promise<number> {
  if (argv.length === 1 && argv[0] === '--version') {
    io.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const { runCli } = await import('./program.js');
  return runCli(argv, io, options);
}
