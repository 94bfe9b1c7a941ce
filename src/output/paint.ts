/**
 * Colours, through chalk at the level the project's colour policy chose (src/output/color.ts: --no-color, NO_COLOR,
 * FORCE_COLOR, not a terminal). chalk is loaded on the first coloured string only, so a run without colour (pipes,
 * CI, --no-color) never pays for its import.
 */
import { createRequire } from 'node:module';
import type { ChalkInstance } from 'chalk';

/** chalk's levels: 0 none, 1 the 16 basic colours, 2 256 colours, 3 true colour. */
export type ColorLevel = 0 | 1 | 2 | 3;

/** What textgen paints with. Every function returns its text unchanged at level 0, and "" for "". */
export interface Paint {
  level: ColorLevel;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  /** Text in a 256-colour foreground. */
  foreground(text: string, code: number): string;
  /** Text on a 256-colour background, in dark text so every shade stays readable. */
  background(text: string, code: number): string;
}

const instances = new Map<ColorLevel, ChalkInstance>();

function chalkAt(level: Exclude<ColorLevel, 0>): ChalkInstance {
  let chalk = instances.get(level);
  if (chalk === undefined) {
    // Synchronous on purpose (require of an ES module, Node ≥ 20.19): warnings and the error line are painted in
    // synchronous code, and only a coloured run gets here.
    const { Chalk } = createRequire(import.meta.url)('chalk') as typeof import('chalk');
    chalk = new Chalk({ level });
    instances.set(level, chalk);
  }
  return chalk;
}

const same = (text: string): string => text;

const CUBE = [0, 95, 135, 175, 215, 255] as const;
const BASIC: ReadonlyArray<readonly [number, number, number]> = [
  [0, 0, 0],
  [205, 0, 0],
  [0, 205, 0],
  [205, 205, 0],
  [0, 0, 238],
  [205, 0, 205],
  [0, 205, 205],
  [229, 229, 229],
  [127, 127, 127],
  [255, 0, 0],
  [0, 255, 0],
  [255, 255, 0],
  [92, 92, 255],
  [255, 0, 255],
  [0, 255, 255],
  [255, 255, 255],
];

/**
 * The RGB of an xterm 256-colour code. chalk brings RGB down to the 16 basic colours at level 1 but passes 256-colour
 * codes through unchanged, so at level 1 the pictures' shades go through RGB.
 */
export function xtermRgb(code: number): [number, number, number] {
  if (code < 16) return [...BASIC[Math.max(0, code)]!];
  if (code >= 232) {
    const grey = 8 + 10 * (Math.min(code, 255) - 232);
    return [grey, grey, grey];
  }
  const i = code - 16;
  return [CUBE[Math.floor(i / 36)]!, CUBE[Math.floor(i / 6) % 6]!, CUBE[i % 6]!];
}

const PLAIN: Paint = { level: 0, red: same, yellow: same, cyan: same, dim: same, foreground: same, background: same };

/** The painter for a level; level 0 (or false) paints nothing and loads nothing. */
export function paint(level: ColorLevel | boolean): Paint {
  const at: ColorLevel = level === true ? 2 : level === false ? 0 : level;
  if (at === 0) return PLAIN;
  const chalk = (): ChalkInstance => chalkAt(at);
  const guard = (style: (text: string) => string) => (text: string) => (text === '' ? '' : style(text));
  return {
    level: at,
    red: guard((t) => chalk().red(t)),
    yellow: guard((t) => chalk().yellow(t)),
    cyan: guard((t) => chalk().cyan(t)),
    dim: guard((t) => chalk().dim(t)),
    foreground: (text, code) =>
      text === '' ? '' : at === 1 ? chalk().rgb(...xtermRgb(code))(text) : chalk().ansi256(code)(text),
    background: (text, code) =>
      text === '' ? '' : at === 1 ? chalk().black.bgRgb(...xtermRgb(code))(text) : chalk().black.bgAnsi256(code)(text),
  };
}

/**
 * Paints each line of `text` separately: a background that spans a line break would colour the rest of the
 * terminal row on some terminals, so colour is closed before every newline and reopened after it.
 */
export function perLine(text: string, painter: (piece: string) => string): string {
  return text.split('\n').map(painter).join('\n');
}

/** The picked shade of `value` in 0..1 from a ramp (lowest first). */
export function shade(ramp: readonly number[], value: number): number {
  const v = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
  return ramp[Math.min(ramp.length - 1, Math.floor(v * ramp.length))]!;
}
