import { chmod, lstat, mkdir, readlink, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes a file only its owner can read (0600), through a temporary file and a rename so a reader never sees half
 * of it. For the token cache, the tokenizer cache and the user config: all may hold what others must not see.
 *
 * Directories are made 0700 only when textgen creates them now: one that already exists belongs to whoever made
 * it (a shared 1777 cache, a project folder holding a --config file, a symlink to elsewhere), and its mode is left
 * alone; nothing is ever chmodded through a symbolic link. A file that is a symbolic link is written where the link
 * points, so the link stays a link (a dotfiles repository keeps owning the real file). Files a user names on the
 * command line are checked first (./destination.ts: no links of other users, nothing but a regular file) and then
 * written with `followLinks: false`: the checked target itself is replaced, and a link swapped in since is replaced
 * rather than written through (the temporary file is made with O_EXCL, and rename never follows the last component).
 */
export async function writePrivateFile(
  file: string,
  text: string,
  { followLinks: follow = true }: { followLinks?: boolean } = {},
): Promise<void> {
  const target = follow ? await followLinks(file) : path.resolve(file);
  await makePrivateDirs(path.dirname(target));
  const temp = `${target}.${process.pid}.${process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { mode: 0o600, flag: 'wx' });
    await chmod(temp, 0o600);
    await rename(temp, target);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
}

/**
 * Creates `dir` and any missing parent, each 0700 whatever the umask; existing directories are not touched.
 * mkdir's mode is filtered by the umask, hence the chmod of exactly the directories this call created.
 */
export async function makePrivateDirs(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  const created: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    created.push(d);
    if (d === path.resolve(first) || path.dirname(d) === d) break;
  }
  for (const d of created) {
    // Created a moment ago by this process; lstat guards against a link swapped in since.
    const s = await lstat(d);
    if (s.isDirectory()) await chmod(d, 0o700);
  }
}

/** The file a path names once its symbolic links are followed (the path itself when it is none, or is missing). */
export async function followLinks(file: string): Promise<string> {
  let current = path.resolve(file);
  for (let hops = 0; hops < 40; hops++) {
    let s;
    try {
      s = await lstat(current);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return current;
      throw e;
    }
    if (!s.isSymbolicLink()) return current;
    current = path.resolve(path.dirname(current), await readlink(current));
  }
  throw Object.assign(new Error(`${file}: too many levels of symbolic links`), { code: 'ELOOP' });
}
