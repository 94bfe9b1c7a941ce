/**
 * Two ways to run the CLI on hostile input, both bounded in time and both taking raw bytes on stdin:
 * the built binary (what a user runs) and `main` in-process (cheap enough for thousands of generated cases).
 */
import { PassThrough, Readable } from 'node:stream';
import { execa } from 'execa';
import { BIN } from '../../helpers/run-cli.js';
import { main } from '../../../src/main.js';

export interface Outcome {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The run did not end within its bound. */
  hung: boolean;
  /** main() itself rejected (in-process only): an exception escaped the CLI. */
  threw?: unknown;
}

export interface HostileRun {
  /** Bytes piped to stdin; 'closed' gives no stdin at all (as in CI). Default: closed. */
  stdin?: string | Uint8Array | 'closed';
  /** Built binary only: start it with file descriptor 0 closed (`<&-`), not merely empty. */
  closedFd?: boolean;
  cwd: string;
  env: Record<string, string>;
  timeoutMs?: number;
}

/** The environment of the test process without the developer's own textgen settings or proxies. */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (k.startsWith('TEXTGEN_') || /^(https?|no|all)_proxy$/i.test(k) || k === 'NO_COLOR' || k === 'FORCE_COLOR') continue;
    env[k] = v;
  }
  return { ...env, CI: 'true', ...extra };
}

export async function runBuilt(args: readonly string[], run: HostileRun): Promise<Outcome> {
  const stdin = run.stdin ?? 'closed';
  // `exec … <&-` leaves the CLI with no stdin at all, as some CI runners and daemons do.
  const [file, argv] = run.closedFd ? ['sh', ['-c', 'exec "$0" "$@" <&-', 'node', BIN, ...args]] : ['node', [BIN, ...args]];
  const result = await execa(file, argv, {
    env: cleanEnv(run.env),
    extendEnv: false,
    reject: false,
    ...(stdin === 'closed' ? { stdin: 'ignore' as const } : { input: stdin }),
    cwd: run.cwd,
    timeout: run.timeoutMs ?? 20_000,
    stripFinalNewline: false,
    // 50 MB go in; only messages come out, but a bug could echo the input.
    maxBuffer: 200_000_000,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr), hung: result.timedOut === true };
}

export async function runInProcess(args: readonly string[], run: HostileRun): Promise<Outcome> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (b: Buffer) => out.push(b));
  stderr.on('data', (b: Buffer) => err.push(b));
  const bytes = run.stdin === undefined || run.stdin === 'closed' ? [] : [typeof run.stdin === 'string' ? Buffer.from(run.stdin) : Buffer.from(run.stdin)];
  const stdin = Readable.from(bytes);
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), run.timeoutMs ?? 10_000);
  });
  const collected = () => ({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
  try {
    const code = await Promise.race([main([...args], { env: cleanEnv(run.env), cwd: run.cwd, stdin, stdout, stderr }), bound]);
    if (code === 'hung') return { exitCode: -1, ...collected(), hung: true };
    return { exitCode: code, ...collected(), hung: false };
  } catch (e) {
    return { exitCode: -1, ...collected(), hung: false, threw: e };
  } finally {
    clearTimeout(timer);
  }
}
