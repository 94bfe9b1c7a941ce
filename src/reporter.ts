import type { Reporter } from './context.js';
import { paint, type ColorLevel } from './output/paint.js';
import { visibleControls } from './output/visible.js';

export interface ReporterOptions {
  stderr: NodeJS.WritableStream;
  quiet: boolean;
  verbose: boolean;
  /** The colour level of stderr (0: none). */
  color: ColorLevel;
  /** Masks known secrets in every line (a warning may quote what a service said). */
  redact?: (text: string) => string;
}

/** stderr writer: warnings and info lines (silenced by -q), trace lines (only with -v). */
export function createReporter(opts: ReporterOptions): Reporter {
  const { yellow, dim } = paint(opts.color);
  const write = (raw: string) => {
    const line = opts.redact ? opts.redact(raw) : raw;
    try {
      opts.stderr.write(line.endsWith('\n') ? line : `${line}\n`);
    } catch {
      // stderr gone: nothing sensible left to do.
    }
  };
  return {
    quiet: opts.quiet,
    verbose: opts.verbose,
    // Messages quote services (warnings, headers, error bodies): their control characters are shown, not obeyed.
    warn(message) {
      if (!opts.quiet) write(`${yellow('warning:')} ${visibleControls(message)}`);
    },
    info(message) {
      if (!opts.quiet) write(visibleControls(message));
    },
    trace(line) {
      if (opts.verbose) write(dim(visibleControls(line)));
    },
  };
}
