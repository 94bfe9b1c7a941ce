/**
 * Flag combinations every batch command refuses, checked before anything is read or sent: the lines are the input,
 * stdin can be read once, and the records are JSONL whatever -o says.
 */
import { UsageError } from '../contract/errors.js';
import type { Context } from '../context.js';
import type { BatchSettings } from '../options/batch-settings.js';

export function checkBatchFlags(
  ctx: Context,
  settings: BatchSettings,
  given: { inputFlags: string[]; raw: Record<string, unknown>; refused?: string[] },
): void {
  if (given.inputFlags.length > 0) {
    throw new UsageError(
      `${given.inputFlags.join(' and ')} cannot be used with --batch: every line of the batch holds its own input`,
    );
  }
  for (const flag of given.refused ?? []) throw new UsageError(`${flag} cannot be used with --batch`);
  if (ctx.output().format === 'yaml') {
    throw new UsageError('--batch writes JSONL records (one per line); -o yaml cannot be used with it', {
      hint: 'drop -o, or use -o jsonl',
    });
  }
  if (settings.source === '-') {
    const readers = Object.entries(given.raw).filter(([, v]) => v === '@-' || (Array.isArray(v) && v.includes('@-')));
    if (readers.length > 0)
      throw new UsageError('--batch - reads the lines from stdin, so no option can read @- as well', {
        hint: 'put that option in a file and give @path',
      });
  }
}
