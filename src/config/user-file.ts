/**
 * Edits the file `profiles add|remove|use` write: the user file (`$XDG_CONFIG_HOME/textgen/config.yaml`), or the
 * --config / TEXTGEN_CONFIG file when one is named. Edits go through yaml's Document API so comments and the order
 * of what the user wrote survive; the file is rewritten 0600 because it may hold a literal secret.
 * This module is only ever loaded lazily (from the profiles commands), so yaml is imported at the top.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isSeq, parseDocument, type Document } from 'yaml';
import { UsageError } from '../contract/errors.js';
import { displayPath, homeDir, userConfigPath } from './load.js';
import { checkDestination } from './destination.js';
import { followLinks, makePrivateDirs, writePrivateFile } from './private-file.js';
import { withFileLock } from './file-lock.js';
import type { ConfigFile, ProfileConfig } from './schema.js';

export interface UserFile {
  file: string;
  /** For messages: `~/.config/textgen/config.yaml`. */
  shown: string;
  doc: Document;
}

/** The file to edit: --config / TEXTGEN_CONFIG when given (YAML or JSON only), else the user file. */
export function editableConfigPath(opts: {
  configPath?: string | undefined;
  cwd: string;
  env: Record<string, string | undefined>;
}): string {
  if (opts.configPath === undefined || opts.configPath === '') return userConfigPath(opts.env);
  const file = path.resolve(opts.cwd, opts.configPath);
  if (/\.(c|m)?[jt]s$/.test(file))
    throw new UsageError(`cannot edit ${opts.configPath}: it is code, not data`, {
      hint: 'edit it by hand, or drop --config to use the user file',
    });
  return file;
}

export async function readUserFile(file: string, env: Record<string, string | undefined>): Promise<UserFile> {
  const shown = displayPath(file, homeDir(env));
  // It is replaced when saved: a FIFO, a device or another user's link is refused before it is read (or blocks).
  await checkDestination('config file', shown, { cwd: path.dirname(file), homeDir: homeDir(env) });
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new UsageError(`${shown}: cannot read: ${(e as Error).message}`);
  }
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0)
    throw new UsageError(`${shown}: ${doc.errors[0]!.message.split('\n')[0]}`, { hint: 'fix the file by hand first' });
  // An empty file has no contents node; yaml types contents by what was parsed (here null), hence the cast.
  if (doc.contents === null) doc.contents = doc.createNode({}) as unknown as typeof doc.contents;
  if (!isMap(doc.contents)) throw new UsageError(`${shown}: expected a mapping at the top level`);
  const uf = { file, shown, doc };
  // Before anything is asked or tested: an alias bomb is refused here as every other command refuses it.
  toData(uf);
  return uf;
}

/** The document as plain data; an alias bomb or a stack-deep file is a usage error, as when loading (load.ts). */
function toData(uf: UserFile): unknown {
  try {
    return uf.doc.toJS({ maxAliasCount: 1000 });
  } catch (e) {
    const message = (e as Error).message;
    throw new UsageError(
      `${uf.shown}: ${/call stack/i.test(message) ? 'nested too deeply to read' : (message.split('\n')[0] ?? '')}`,
      { hint: 'fix the file by hand first' },
    );
  }
}

/** The file's contents, validated as any config file is. */
export async function userFileConfig(uf: UserFile): Promise<ConfigFile> {
  const { parseConfigFile } = await import('./schema.js');
  return parseConfigFile(toData(uf), uf.shown);
}

export function hasProfile(uf: UserFile, name: string): boolean {
  return uf.doc.hasIn(['profiles', name]);
}

export function setProfile(uf: UserFile, name: string, profile: ProfileConfig): void {
  // `profiles:` with nothing under it parses as null: a path through it needs a mapping.
  if (!isMap(uf.doc.get('profiles'))) uf.doc.set('profiles', uf.doc.createNode({}));
  uf.doc.setIn(['profiles', name], uf.doc.createNode(profile));
}

/** Removes the profile, and default_profile when it named it. */
export function removeProfile(uf: UserFile, name: string): void {
  uf.doc.deleteIn(['profiles', name]);
  if (uf.doc.get('default_profile') === name) uf.doc.delete('default_profile');
}

export function setDefaultProfile(uf: UserFile, name: string): void {
  uf.doc.set('default_profile', name);
}

/** Validates what is about to be written (a bad file would break every later command), then writes it 0600. */
export async function saveUserFile(uf: UserFile): Promise<void> {
  await userFileConfig(uf);
  await writePrivateFile(uf.file, uf.doc.toString());
}

/**
 * Reads the file, applies `change` and writes it back, holding the file's lock throughout, so that two commands
 * editing it at once (two `profiles add`) each see the other's change instead of one overwriting it.
 */
export async function updateUserFile<T>(
  file: string,
  env: Record<string, string | undefined>,
  change: (uf: UserFile) => T | Promise<T>,
): Promise<{ uf: UserFile; result: T }> {
  const target = await followLinks(file);
  await makePrivateDirs(path.dirname(target));
  return withFileLock(
    target,
    async () => {
      const uf = await readUserFile(file, env);
      const result = await change(uf);
      await saveUserFile(uf);
      return { uf, result };
    },
    displayPath(file, homeDir(env)),
  );
}

/**
 * Records (or renews) the trust of one project file under `trusted_files`, editing that list in place so the rest of
 * the document keeps its comments and layout.
 */
export function setTrust(uf: UserFile, record: { path: string; sha256: string; trusted_at: string }): void {
  const list = uf.doc.get('trusted_files');
  if (!isSeq(list)) {
    uf.doc.set('trusted_files', uf.doc.createNode([record]));
    return;
  }
  const at = list.items.findIndex((item) => isMap(item) && item.get('path') === record.path);
  const node = uf.doc.createNode(record);
  if (at >= 0) list.set(at, node);
  else list.add(node);
}

/** Removes the trust of one file; whether there was one. An emptied list is removed with it. */
export function removeTrust(uf: UserFile, file: string): boolean {
  const list = uf.doc.get('trusted_files');
  if (!isSeq(list)) return false;
  const at = list.items.findIndex((item) => isMap(item) && item.get('path') === file);
  if (at < 0) return false;
  list.delete(at);
  if (list.items.length === 0) uf.doc.delete('trusted_files');
  return true;
}
