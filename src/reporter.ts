import type { Reporter } from './context.js';
import { paint, type ColorLevel } from './output/paint.js';

export interface ReporterOptions {
  stderr: NodeJS.WritableStream;
  quiet: boolean;
  verbose: boolean;
  /** The colour level of stderr (0: none). */
  color: ColorLevel;
}


/** stderr writer: warnings and info lines (silenced by -q), trace lines (only with -v). */
export function createReporter(opts: ReporterOptions): Reporter {
  const { yellow, dim } = paint(opts.color);
  const write = (line: string) => {
    try {
      opts.stderr.write(line.endsWith('\n') ? line : `${line}\n`);
    } catch {
      // stderr gone: nothing sensible left to do.
    }
  };
  return {
    quiet: opts.quiet,
    verbose: opts.verbose,
    warn(message) {
      if (!opts.quiet) write(`${yellow('warning:')} ${message}`);
    },
    info(message) {
      if (!opts.quiet) write(message);
    },
    trace(line) {
      if (opts.verbose) write(dim(line));
    },
  };
}
