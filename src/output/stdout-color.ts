import type { Context } from '../context.js';
import { colorEnabled } from './color.js';

/**
 * Colour for pictures printed on stdout. Stricter than the stderr policy: stdout carries data, so FORCE_COLOR may
 * turn colour off but never pushes escape codes into a pipe or a file.
 */
export function stdoutColor(ctx: Pick<Context, 'env' | 'terminal' | 'globals'>): boolean {
  if (!ctx.terminal.stdoutIsTTY) return false;
  return colorEnabled({ env: ctx.env, isTTY: true, ...(ctx.globals.color === false ? { flag: false } : {}) });
}
