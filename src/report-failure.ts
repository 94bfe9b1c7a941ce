import type { Reporter } from './context.js';
import { isTextgenError, Interrupted } from './errors.js';

const red = (s: string) => `\u001b[31m${s}\u001b[39m`;

/**
 * The top-level error printer: `error: <message>` plus the hint for expected failures; one line for
 * a bug, with the stack only under --verbose. Returns the exit code.
 */
export function reportFailure(
  e: unknown,
  reporter: Reporter,
  stderr: NodeJS.WritableStream,
  verbose: boolean,
  color: boolean,
): number {
  const label = color ? red('error:') : 'error:';
  const write = (s: string) => {
    try {
      stderr.write(s);
    } catch {
      // stderr closed: the exit code still tells.
    }
  };
  if (e instanceof Interrupted) {
    write('\n');
    return e.exitCode;
  }
  if (isTextgenError(e)) {
    write(`${label} ${e.message}\n`);
    if (e.hint) write(`hint: ${e.hint}\n`);
    if (verbose && e.cause instanceof Error && e.cause.stack) reporter.trace(e.cause.stack);
    return e.exitCode;
  }
  const message = e instanceof Error ? e.message : String(e);
  write(`${label} internal error: ${message.split('\n')[0]}${verbose ? '' : ' (run with --verbose for details)'}\n`);
  if (verbose && e instanceof Error && e.stack) write(`${e.stack}\n`);
  return 1;
}
