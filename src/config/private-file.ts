import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes a file only its owner can read (0600, in 0700 directories), through a temporary file and a rename so a
 * reader never sees half of it. For the token cache and the tokenizer cache: both may hold what others must not see.
 */
export async function writePrivateFile(file: string, text: string, privateDirs: readonly string[] = [path.dirname(file)]): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask and ignored when the directory exists: set it outright.
  for (const d of privateDirs) await chmod(d, 0o700);
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { mode: 0o600, flag: 'wx' });
    await chmod(temp, 0o600);
    await rename(temp, file);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
}
