/**
 * The few escape codes the pictures need, written out rather than loaded from chalk: they run on every coloured
 * command and chalk would add its import time for what is a handful of string templates.
 */
const ESC = '\u001b[';

/** Text on a 256-colour background, with dark text so every shade stays readable. */
export function onBackground(text: string, bg: number): string {
  return text === '' ? '' : `${ESC}30;48;5;${bg}m${text}${ESC}39;49m`;
}

/** Text in a 256-colour foreground. */
export function inForeground(text: string, fg: number): string {
  return text === '' ? '' : `${ESC}38;5;${fg}m${text}${ESC}39m`;
}

export function dim(text: string): string {
  return `${ESC}2m${text}${ESC}22m`;
}

/**
 * Paints each line of `text` separately: a background that spans a line break would colour the rest of the
 * terminal row on some terminals, so colour is closed before every newline and reopened after it.
 */
export function perLine(text: string, paint: (piece: string) => string): string {
  return text.split('\n').map(paint).join('\n');
}

/** The picked shade of `value` in 0..1 from a ramp (lowest first). */
export function shade(ramp: readonly number[], value: number): number {
  const v = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
  return ramp[Math.min(ramp.length - 1, Math.floor(v * ramp.length))]!;
}
