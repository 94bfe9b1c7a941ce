import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { execa } from 'execa';
import { main } from '../../src/cli/main.js';

export const BIN = resolve(import.meta.dirname, '../../bin/textgen.js');

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A throw-away HOME with empty config and cache dirs, so tests never touch the real ones. */
export function makeHome(): { dir: string; env: Record<string, string>; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'textgen-test-'));
  return {
    dir,
    env: {
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      XDG_CACHE_HOME: join(dir, 'cache'),
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Environment without the developer's own textgen settings or proxies. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (k.startsWith('TEXTGEN_') || /^(https?|no|all)_proxy$/i.test(k) || k === 'NO_COLOR' || k === 'FORCE_COLOR')
      continue;
    env[k] = v;
  }
  return env;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** Text piped to stdin; without it stdin is closed (like CI). */
  input?: string;
  cwd?: string;
  timeout?: number;
}

/** Runs the built binary as a user would: separate stdout, stderr and exit code; never interactive. */
export async function runBin(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  const result = await execa('node', [BIN, ...args], {
    env: { ...baseEnv(), CI: 'true', ...opts.env },
    extendEnv: false,
    reject: false,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' }),
    cwd: opts.cwd ?? process.cwd(),
    timeout: opts.timeout ?? 20_000,
    stripFinalNewline: false,
  });
  if (result.timedOut) throw new Error(`textgen ${args.join(' ')} timed out (it must never hang)`);
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the CLI in-process (handlers, parsing and output exactly as the binary, without a child process). */
export async function runInProcess(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  const io = inProcessIo(opts.input);
  const exitCode = await main(args, {
    env: { ...baseEnv(), CI: 'true', ...opts.env },
    cwd: opts.cwd ?? process.cwd(),
    ...io.streams,
  });
  return { exitCode, ...io.collected() };
}

/** The three streams `main` takes in-process: stdin from the given bytes (none: an ended stream), captured output. */
export function inProcessIo(input: string | Uint8Array | undefined): {
  streams: { stdin: Readable; stdout: PassThrough; stderr: PassThrough };
  collected(): { stdout: string; stderr: string };
} {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (b: Buffer) => out.push(b));
  stderr.on('data', (b: Buffer) => err.push(b));
  const stdin = Readable.from(input !== undefined ? [Buffer.from(input)] : []);
  return {
    streams: { stdin, stdout, stderr },
    collected: () => ({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
  };
}
