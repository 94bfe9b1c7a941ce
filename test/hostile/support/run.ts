/**
 * Two ways to run the CLI on hostile input, both bounded in time and both taking raw bytes on stdin:
 * the built binary (what a user runs) and `main` in-process (cheap enough for thousands of generated cases).
 */
import { execa } from 'execa';
import { BIN, baseEnv, inProcessIo } from '../../helpers/run-cli.js';
import { main } from '../../../src/cli/main.js';

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
  return { ...baseEnv(), CI: 'true', ...extra };
}

export async function runBuilt(args: readonly string[], run: HostileRun): Promise<Outcome> {
  const stdin = run.stdin ?? 'closed';
  // `exec … <&-` leaves the CLI with no stdin at all, as some CI runners and daemons do.
  const [file, argv] = run.closedFd
    ? ['sh', ['-c', 'exec "$0" "$@" <&-', 'node', BIN, ...args]]
    : ['node', [BIN, ...args]];
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
  return {
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    hung: result.timedOut === true,
  };
}

export async function runInProcess(args: readonly string[], run: HostileRun): Promise<Outcome> {
  const io = inProcessIo(run.stdin === undefined || run.stdin === 'closed' ? undefined : run.stdin);
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), run.timeoutMs ?? 10_000);
  });
  try {
    const code = await Promise.race([main([...args], { env: cleanEnv(run.env), cwd: run.cwd, ...io.streams }), bound]);
    if (code === 'hung') return { exitCode: -1, ...io.collected(), hung: true };
    return { exitCode: code, ...io.collected(), hung: false };
  } catch (e) {
    return { exitCode: -1, ...io.collected(), hung: false, threw: e };
  } finally {
    clearTimeout(timer);
  }
}
