/**
 * One writer at a time for a file textgen edits (the user config): `FILE.lock` created with O_EXCL holds the
 * writer's pid, host and start time. Two `profiles add` at once each read the file, added their profile and wrote
 * it back, and one profile vanished; under the lock the second reads what the first wrote.
 *
 * A lock is stale — and taken over — when its process is gone (same host) or it is older than any edit takes; a
 * lock file that cannot be read is judged by its age alone. A writer that cannot get the lock within a few seconds
 * gives up with a usage error naming who holds it. No dependency: the lockfile packages on npm either want a newer
 * Node or are unmaintained, and O_EXCL is all this needs.
 */
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { readFile, stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import { UsageError } from '../contract/errors.js';

/** An edit (read, change, validate, write) takes milliseconds; a lock this old was left by a crash. */
const STALE_AFTER_MS = 30_000;
const GIVE_UP_AFTER_MS = 10_000;

interface Holder {
  pid: number;
  host: string;
  at: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function holderOf(lock: string): Promise<Holder | undefined> {
  try {
    const h = JSON.parse(await readFile(lock, 'utf8')) as Partial<Holder>;
    if (typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.at === 'number') return h as Holder;
  } catch {
    // Being written this very moment, or not ours: judged by its age.
  }
  return undefined;
}

async function stale(lock: string, holder: Holder | undefined): Promise<boolean> {
  if (holder !== undefined && holder.host === os.hostname() && !alive(holder.pid)) return true;
  try {
    return Date.now() - (await stat(lock)).mtimeMs > STALE_AFTER_MS;
  } catch {
    return false; // gone already: the next attempt takes it
  }
}

function tryCreate(lock: string): boolean {
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new UsageError(`cannot lock ${lock}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    writeSync(fd, JSON.stringify({ pid: process.pid, host: os.hostname(), at: Date.now() } satisfies Holder));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Runs `edit` while holding `file`'s lock; the lock goes when it ends, however it ends (even at a process exit). */
export async function withFileLock<T>(file: string, edit: () => Promise<T>, shown = file): Promise<T> {
  const lock = `${file}.lock`;
  const started = Date.now();
  for (let attempt = 0; !tryCreate(lock); attempt++) {
    const holder = await holderOf(lock);
    if (await stale(lock, holder)) {
      // Taken over only if it is still the lock judged stale: another waiter may have replaced it meanwhile.
      const again = await holderOf(lock);
      if (again?.pid === holder?.pid && again?.at === holder?.at) await unlink(lock).catch(() => undefined);
      continue;
    }
    if (Date.now() - started > GIVE_UP_AFTER_MS) {
      const who = holder
        ? `process ${holder.pid}${holder.host !== os.hostname() ? ` on ${holder.host}` : ''}`
        : 'another process';
      throw new UsageError(`${shown} is being edited by ${who}; try again when it is done`, {
        hint: `if no textgen is running, remove ${lock}`,
      });
    }
    // Short waits with jitter: edits are quick, and two waiters should not wake in step.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(200, 10 * 2 ** Math.min(attempt, 4)) * (0.5 + Math.random())),
    );
  }
  const release = () => {
    try {
      unlinkSync(lock);
    } catch {
      // Already gone.
    }
  };
  process.once('exit', release);
  try {
    return await edit();
  } finally {
    process.off('exit', release);
    release();
  }
}
