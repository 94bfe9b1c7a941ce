import type { Reporter } from '../context.js';
import { isTextgenError, Interrupted } from '../contract/errors.js';
import { paint, type ColorLevel } from '../output/paint.js';

/**
 * Messages quote what the user gave (a flag value, a file name, a URL), which may hold terminal control
 * sequences: they are shown escaped (`\x1b`, `\n`). Line breaks stay only in a message whose every line names
 * the same source, as a config file's per-field lines do (`file: a.b: …`); a newline inside a quoted value
 * must not start a line of its own.
 */
export function printable(text: string): string {
  const lines = text.split('\n');
  const source = /^[^:]+: /.exec(lines[0] ?? '')?.[0];
  const keepBreaks = lines.length > 1 && source !== undefined && lines.every((line) => line.startsWith(source));
  const visible = (s: string) =>
    s.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200d\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g, (c) =>
      c === '\n'
        ? '\\n'
        : c.charCodeAt(0) > 0xff
          ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` // bidi and zero-width (src/output/visible.ts)
          : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
    );
  return keepBreaks ? lines.map(visible).join('\n') : visible(text);
}

/**
 * The top-level error printer: `error: <message>` plus the hint for expected failures; one line for
 * a bug, with the stack only under --verbose. Returns the exit code.
 */
export function reportFailure(
  e: unknown,
  reporter: Reporter,
  stderr: NodeJS.WritableStream,
  verbose: boolean,
  color: ColorLevel | boolean,
  redact: (text: string) => string = (text) => text,
): number {
  const label = paint(color).red('error:');
  const write = (s: string) => {
    try {
      // A service may echo a credential back in its error message: it is masked here, whatever the source.
      stderr.write(redact(s));
    } catch {
      // stderr closed: the exit code still tells.
    }
  };
  if (e instanceof Interrupted) {
    write('\n');
    return e.exitCode;
  }
  if (isTextgenError(e)) {
    write(`${label} ${printable(e.message)}\n`);
    if (e.hint) write(`hint: ${printable(e.hint)}\n`);
    if (verbose && e.cause instanceof Error && e.cause.stack) reporter.trace(e.cause.stack);
    return e.exitCode;
  }
  const message = e instanceof Error ? e.message : String(e);
  write(
    `${label} internal error: ${printable(message.split('\n')[0] ?? '')}${verbose ? '' : ' (run with --verbose for details)'}\n`,
  );
  if (verbose && e instanceof Error && e.stack) write(`${e.stack}\n`);
  return 1;
}
