/**
 * Text from a service shown on a terminal: its control characters are written out (`\x1b`, `\x9b`) instead of
 * sent raw, so an answer cannot set the clipboard (OSC 52), the window title (OSC 0), clear the screen, ask the
 * terminal to type a reply (DSR) or hide what follows — as error messages already do (src/cli/report-failure.ts).
 * In pipes and in JSON, JSONL and YAML the data stays as it is.
 */

const hex = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** Control characters made visible; line breaks (LF, and CR before LF) and tabs stay, text output needs them. */
export function visibleControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/g, hex);
}

/** The same for a value shown inside one line (a stop reason, a table cell): line breaks and tabs too. */
export function visibleInLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : hex(c)));
}
