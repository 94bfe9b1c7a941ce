/**
 * One writer at a time for a file textgen edits (the user config, a conversation, a batch output): `FILE.lock`
 * created with O_EXCL holds the writer's pid, host and start time. Two `profiles add` at once each read the file,
 * added their profile and wrote it back, and one profile vanished; under the lock the second reads what the first
 * wrote. Two `chat --continue` or two `batch --resume` on one file are refused instead (holdFileLock).
 *
 * A lock is stale — and taken over — when its process is gone (same host) or it has not been refreshed for
 * STALE_AFTER_MS (its holder refreshes it while it runs); a lock file that cannot be read is judged by its age
 * alone. An editor that cannot get the lock within a few seconds gives up with a usage error naming who holds it. No dependency: the lockfile packages on npm either want a newer
 * Node or are unmaintained, and O_EXCL is all this needs.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { readFile, stat, unlink, utimes } from 'node:fs/promises';
import os from 'node:os';
import { UsageError } from '../contract/errors.js';

/** A holder refreshes its lock three times in this span; one not refreshed for this long was left by a crash. */
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

/** The lock made now (O_EXCL, so never through a planted link), or undefined when one is there already. */
function tryCreate(lock: string): Holder | undefined {
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw new UsageError(`cannot lock ${lock}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const holder: Holder = { pid: process.pid, host: os.hostname(), at: Date.now() };
  try {
    writeSync(fd, JSON.stringify(holder));
  } finally {
    closeSync(fd);
  }
  return holder;
}

/** A lock this process holds; `release` removes it (only while it is still this process's lock). */
export interface HeldLock {
  release(): void;
}

/**
 * Takes `file`'s lock, or fails at once when a live writer holds it (a stale lock — its process gone, or not
 * refreshed for STALE_AFTER_MS — is taken over). For writers that hold a file for as long as a request or a batch
 * runs (`chat --continue`, `batch --resume`): a second one is refused with a usage error (exit 2) naming the holder,
 * instead of waiting for a run that may take hours, or both writing and one losing the other's work. The lock is
 * refreshed while held, so a long run's lock never looks stale.
 */
export async function holdFileLock(file: string, shown = file): Promise<HeldLock> {
  return take(file, shown, 0);
}

/** Runs `edit` while holding `file`'s lock; the lock goes when it ends, however it ends (even at a process exit). */
export async function withFileLock<T>(file: string, edit: () => Promise<T>, shown = file): Promise<T> {
  const held = await take(file, shown, GIVE_UP_AFTER_MS);
  try {
    return await edit();
  } finally {
    held.release();
  }
}

async function take(file: string, shown: string, waitMs: number): Promise<HeldLock> {
  const lock = `${file}.lock`;
  const started = Date.now();
  let mine: Holder | undefined;
  for (let attempt = 0; (mine = tryCreate(lock)) === undefined; attempt++) {
    const holder = await holderOf(lock);
    if (await stale(lock, holder)) {
      // Taken over only if it is still the lock judged stale: another waiter may have replaced it meanwhile.
      const again = await holderOf(lock);
      if (again?.pid === holder?.pid && again?.at === holder?.at) await unlink(lock).catch(() => undefined);
      continue;
    }
    if (Date.now() - started >= waitMs) {
      const who = holder
        ? `process ${holder.pid}${holder.host !== os.hostname() ? ` on ${holder.host}` : ''}`
        : 'another process';
      throw new UsageError(
        waitMs > 0
          ? `${shown} is being edited by ${who}; try again when it is done`
          : `${shown} is in use by ${who} (another textgen writing it); try again when it has finished`,
        { hint: `if no textgen is running, remove ${lock}` },
      );
    }
    // Short waits with jitter: edits are quick, and two waiters should not wake in step.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(200, 10 * 2 ** Math.min(attempt, 4)) * (0.5 + Math.random())),
    );
  }
  const holder = mine;
  // Refreshed well inside STALE_AFTER_MS, so only a lock whose process stopped refreshing it is ever taken over.
  const refresh = setInterval(() => {
    const now = new Date();
    utimes(lock, now, now).catch(() => undefined);
  }, STALE_AFTER_MS / 3);
  refresh.unref();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(refresh);
    process.off('exit', release);
    try {
      // Not another writer's lock: ours may have been taken over if this process stood still for too long.
      const now = JSON.parse(readFileSync(lock, 'utf8')) as Partial<Holder>;
      if (now.pid === holder.pid && now.at === holder.at) unlinkSync(lock);
    } catch {
      // Already gone.
    }
  };
  process.once('exit', release);
  return { release };
}
