/**
 * Text from a service shown on a terminal: its control characters are written out (`\x1b`, `\x9b`) instead of
 * sent raw, so an answer cannot set the clipboard (OSC 52), the window title (OSC 0), clear the screen, ask the
 * terminal to type a reply (DSR) or hide what follows — as error messages already do (src/cli/report-failure.ts).
 * Bidi controls (U+202A–202E, U+2066–2069) and zero-width characters (U+200B–200D, U+2060, U+FEFF) are shown too
 * (`\u202e`): they reorder or hide what the reader sees (Trojan Source). In pipes and in JSON, JSONL and YAML the
 * data stays as it is. The one writer of service text to stdout is DataSink.text (src/output/safe-write.ts).
 */

const hex = (c: string) => {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** C0 (but LF, and CR before LF, and tab), DEL, C1, bidi controls and zero-width characters. */
const CONTROLS =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200d\u202a-\u202e\u2060\u2066-\u2069\ufeff]|\r(?!\n)/g;

/** Control characters made visible; line breaks (LF, and CR before LF) and tabs stay, text output needs them. */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS, hex);
}

/**
 * JSON text shown on a terminal: the characters JSON writers leave as they are (DEL, C1, bidi, zero-width) written
 * as JSON's own `\\u` escapes, so the text still parses to the same value. They can only stand inside strings.
 */
export function visibleInJson(text: string): string {
  return text.replace(
    /[\u007f-\u009f\u200b-\u200d\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The same for a value shown inside one line (a stop reason, a table cell): line breaks and tabs too. */
export function visibleInLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200d\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g, (c) =>
    c === '\n' ? '\\n' : c === '\t' ? '\\t' : hex(c),
  );
}
