/**
 * Loads a CommonJS bundle (scripts/bundle.mjs) with V8's code cache, as Node 22's `module.enableCompileCache()`
 * does for modules; Node 20 has no such switch, so the bundles are compiled here with `vm.Script` and its
 * `cachedData`. Compiling the request path from source costs more than everything else textgen does before its
 * first byte on the wire; from the cache it is a few milliseconds (docs/performance.md).
 *
 * The cache lives in a directory of the user's own under the temporary directory, like Node's: never followed
 * through a symlink, used only when it and the file belong to this user and nobody else may write to them. A file
 * is named by the bundle's content hash, the Node version and the V8 flags, and V8 checks it again (and rejects
 * a cache from another build); a rejected or missing cache only means compiling from source. Nothing here ever
 * fails a command: any error while reading or writing the cache is ignored. NODE_DISABLE_COMPILE_CACHE=1 (Node's
 * own switch) turns it off.
 *
 * Each cache file records which runs ("coverage keys": help, a command path) it has seen. V8 stores the functions
 * compiled so far, so a cache written after `--help` lacks the request path: a run with a key the cache has not
 * seen writes it again, now holding both. Each command thus writes it at most once per build.
 *
 * A bundle may be cached per scope (the runner bundle: per command). V8 deserialises the whole cache on every
 * load, so one cache that grew with every command a user ever ran would make each command pay for all of them
 * (1.7 MB after the test suite against 0.9 MB for a request alone: about 3 ms per run).
 */
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

const MAGIC = 'textgen-v8-cache 1\n';
/** A cache file larger than this is not ours to read (the bundles' caches are a few megabytes at most). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * The CommonJS wrapper Node itself uses: the bundle sees `require`, `module` and `__filename` as in a .cjs file.
 * scripts/bundle.mjs writes the bundles already wrapped (the same two strings), so that V8 compiles the file's text
 * as read: wrapping it here made a second copy of a megabyte of source (V8 flattens the concatenation), about 230
 * page faults, which on a virtual machine whose faults cost 11 µs each is 2.5 ms of every run (docs/performance.md).
 */
export const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
export const WRAP_TAIL = '\n});';
/** Caches of other builds of a bundle are removed when a new one is written, once they are this old. */
const STALE_MS = 24 * 60 * 60 * 1000;

export interface LoadedBundle<T> {
  exports: T;
  /** Writes the cache when it was missing, rejected, or has not seen `key` yet; never throws. */
  persist(key: string): void;
}

interface CacheFile {
  keys: string[];
  data: Buffer;
}

/** The cache directory for this user, or undefined when the cache is off. */
export function compileCacheDir(env: Record<string, string | undefined>): string | undefined {
  const off = env.NODE_DISABLE_COMPILE_CACHE;
  if (off !== undefined && off !== '' && off !== '0') return undefined;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  return join(tmpdir(), `textgen-compile-cache${uid === undefined ? '' : `-${uid}`}`);
}

/** Answers the bundle's `require("textgen-…")` (a runner's cold part and what it shares, ./launch.ts). */
export type BundleLinks = (request: string) => unknown;

/**
 * The bundle at `file` (ASCII; its content hash is `id`), compiled from the cache in `dir` when there is a valid one:
 * the cache of `scope` (e.g. a command path) when given, so that runs of one kind share a cache and no other.
 */
export function loadBundle<T>(
  file: string,
  id: string,
  dir: string | undefined,
  scope?: string,
  links?: BundleLinks,
): LoadedBundle<T> {
  const scoped = scope === undefined ? '' : `-${scope.replace(/[^A-Za-z0-9]+/g, '_')}`;
  const cachePath =
    dir === undefined
      ? undefined
      : join(dir, `${basename(file, '.cjs')}-${id}${scoped}-${process.version}-${process.arch}-${flagsHash()}.bin`);
  const cacheFile = cachePath === undefined ? undefined : openCache(dir as string, cachePath);
  let cached: CacheFile | undefined;
  let source: string;
  try {
    // One buffer for the bundle's text and then its cache: V8 has copied the text into a string before the cache
    // is read, and memory touched once costs no second page fault (about 200 of them, 2 ms, per run here).
    const fd = openSync(file, 'r');
    let text: string;
    try {
      const size = fstatSync(fd).size;
      const buffer = scratch(Math.max(size, cacheFile?.size ?? 0));
      readAll(fd, buffer, size);
      // The bundles are ASCII (scripts/bundle.mjs sees to it), so latin1 reads them exactly, without UTF-8 decoding.
      text = buffer.toString('latin1', 0, size);
    } finally {
      closeSync(fd);
    }
    source = text.startsWith(WRAP_HEAD) && text.endsWith(WRAP_TAIL) ? text : WRAP_HEAD + text + WRAP_TAIL;
    if (cacheFile !== undefined) cached = readCache(cacheFile, scratch(cacheFile.size));
  } finally {
    if (cacheFile !== undefined) closeSync(cacheFile.fd);
  }
  const script = new Script(source, {
    filename: file,
    ...(cached ? { cachedData: cached.data } : {}),
  });
  // The keys only: the data is a view of the scratch buffer, which the next bundle's load overwrites.
  const seenKeys = cached !== undefined && !script.cachedDataRejected ? cached.keys : undefined;
  const wrapper = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    dirname: string,
  ) => void;
  const mod = { exports: {} };
  const nodeRequire = createRequire(file);
  const bundleRequire =
    links === undefined
      ? nodeRequire
      : Object.assign((request: string) => (request.startsWith('textgen-') ? links(request) : nodeRequire(request)), {
          resolve: nodeRequire.resolve,
          cache: nodeRequire.cache,
          main: nodeRequire.main,
          extensions: nodeRequire.extensions,
        });
  wrapper.call(mod.exports, mod.exports, bundleRequire as NodeJS.Require, mod, file, dirname(file));
  return {
    exports: mod.exports as T,
    persist(key: string): void {
      if (cachePath === undefined || seenKeys?.includes(key)) return;
      writeCache(dir as string, cachePath, `${basename(file, '.cjs')}-`, `${basename(file, '.cjs')}-${id}-`, {
        keys: seenKeys ? [...seenKeys, key] : [key],
        data: script.createCachedData(),
      });
    },
  };
}

/** V8 rejects a cache made under other flags; naming the file by them keeps two flag sets from overwriting each other's. */
function flagsHash(): string {
  const text = `${process.execArgv.join(' ')}|${process.env.NODE_OPTIONS ?? ''}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The directory is usable when it is a real directory (not a symlink) of this user that nobody else may write to. */
function safeDir(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
    return st.isDirectory() && st.uid === uid && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

let scratchBuffer: Buffer | undefined;

/** A buffer of at least `size` bytes, reused from one bundle to the next (read-only data; see loadBundle). */
function scratch(size: number): Buffer {
  if (scratchBuffer === undefined || scratchBuffer.length < size) scratchBuffer = Buffer.allocUnsafeSlow(size);
  return scratchBuffer;
}

/** Reads `size` bytes from the start of `fd`; throws when the file is shorter. */
function readAll(fd: number, buffer: Buffer, size: number): void {
  let at = 0;
  while (at < size) {
    const n = readSync(fd, buffer, at, size - at, at);
    if (n === 0) throw new Error('the file got shorter while it was read');
    at += n;
  }
}

/** The cache file, open, when it is one textgen may use: this user's, in a directory only this user can change. */
function openCache(dir: string, path: string): { fd: number; size: number } | undefined {
  if (!safeDir(dir)) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
    const st = fstatSync(fd);
    const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
    if (st.isFile() && st.uid === uid && st.size <= MAX_CACHE_BYTES && st.size >= MAGIC.length) {
      const open = { fd, size: st.size };
      fd = undefined;
      return open;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The cache's coverage keys and V8 data, read into `buffer`: the data is a view of it, valid until the next
 * bundle is loaded (V8 reads it while compiling, synchronously, and keeps no reference).
 */
function readCache(file: { fd: number; size: number }, buffer: Buffer): CacheFile | undefined {
  try {
    readAll(file.fd, buffer, file.size);
    const bytes = buffer.subarray(0, file.size);
    if (bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
    const eol = bytes.indexOf(10, MAGIC.length);
    if (eol === -1) return undefined;
    const keys: unknown = JSON.parse(bytes.toString('utf8', MAGIC.length, eol));
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) return undefined;
    return { keys, data: bytes.subarray(eol + 1) };
  } catch {
    return undefined;
  }
}

function writeCache(dir: string, path: string, bundle: string, build: string, file: CacheFile): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return;
    }
    if (!safeDir(dir)) return;
    writeFileSync(temp, Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify(file.keys)}\n`), file.data]), {
      flag: 'wx',
      mode: 0o600,
    });
    // Whole or not at all: a reader sees the old file or the new one, never a part.
    renameSync(temp, path);
    pruneOtherBuilds(dir, bundle, build);
  } catch {
    rmSync(temp, { force: true });
  }
}

/**
 * An upgrade leaves the caches of the old build behind: those of the same bundle (names starting `bundle`) but
 * another build (not starting `build`) go once nothing has written them for a day.
 */
function pruneOtherBuilds(dir: string, bundle: string, build: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(bundle) || name.startsWith(build) || !name.endsWith('.bin')) continue;
    try {
      const file = join(dir, name);
      if (now - lstatSync(file).mtimeMs > STALE_MS) rmSync(file, { force: true });
    } catch {
      // Another run may have removed it first.
    }
  }
}
