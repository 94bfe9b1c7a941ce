import type { Reporter } from './context.js';

export interface ReporterOptions {
  stderr: NodeJS.WritableStream;
  quiet: boolean;
  verbose: boolean;
  color: boolean;
  /** Masks known secrets in every line (a warning may quote what a service said). */
  redact?: (text: string) => string;
}

import { visibleControls } from './output/visible.js';

const yellow = (s: string) => `\u001b[33m${s}\u001b[39m`;
const dim = (s: string) => `\u001b[2m${s}\u001b[22m`;

/** stderr writer: warnings and info lines (silenced by -q), trace lines (only with -v). */
export function createReporter(opts: ReporterOptions): Reporter {
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
      if (!opts.quiet) write(`${opts.color ? yellow('warning:') : 'warning:'} ${visibleControls(message)}`);
    },
    info(message) {
      if (!opts.quiet) write(visibleControls(message));
    },
    trace(line) {
      if (opts.verbose) write(opts.color ? dim(visibleControls(line)) : visibleControls(line));
    },
  };
}
