/**
 * Which project files you trust (direnv's `allow`, mise's `trust`): a file recorded in the user file with its content
 * hash (`textgen trust`), so that an edited file is untrusted again; a file named in TEXTGEN_TRUST (CI, where
 * nobody can run `textgen trust`); and a project file in your home directory itself, which nobody else can write.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';

/** One entry of `trusted_files` in the user file. */
export interface TrustRecord {
  path: string;
  sha256: string;
  trusted_at?: string | undefined;
}

export const TRUST_ENV = 'TEXTGEN_TRUST';

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The path a trust is recorded under: absolute, symbolic links resolved (so /tmp and /private/tmp are one file). */
export function trustKey(file: string): string {
  const resolved = path.resolve(file);
  try {
    return realpathSync(resolved);
  } catch {
    return resolved;
  }
}

/** The files TEXTGEN_TRUST names: path-delimiter separated, each absolute or relative to the working directory. */
export function trustedByEnv(env: Record<string, string | undefined>, cwd: string): string[] {
  const value = env[TRUST_ENV];
  if (value === undefined || value === '') return [];
  return value
    .split(path.delimiter)
    .filter((p) => p !== '')
    .map((p) => trustKey(path.resolve(cwd, p)));
}

export type TrustState = 'trusted' | 'changed' | 'untrusted';

/** How a file stands: trusted (by record, TEXTGEN_TRUST or living in $HOME), changed since it was trusted, or not. */
export function trustOf(
  file: string,
  bytes: Buffer,
  opts: { records: readonly TrustRecord[]; env: Record<string, string | undefined>; cwd: string; home: string },
): { state: TrustState; by?: string } {
  const key = trustKey(file);
  if (path.dirname(key) === trustKey(opts.home)) return { state: 'trusted', by: 'your home directory' };
  if (trustedByEnv(opts.env, opts.cwd).includes(key)) return { state: 'trusted', by: TRUST_ENV };
  const record = opts.records.find((r) => r.path === key);
  if (record === undefined) return { state: 'untrusted' };
  return record.sha256 === sha256(bytes) ? { state: 'trusted', by: 'textgen trust' } : { state: 'changed' };
}

/** A path for a shell command line (the `textgen trust PATH` hint). */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
