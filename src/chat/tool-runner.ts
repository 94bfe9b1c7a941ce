/**
 * `--run-tool NAME=COMMAND`: the command the model's call of NAME runs. COMMAND is split into argv the way execa's
 * `parseCommandString` splits it (spaces separate, `\ ` keeps a space; no shell, so no quoting, globbing or
 * pipes); the call's arguments go to its stdin as JSON and its stdout, bounded, is the tool's result. Whatever goes
 * wrong — not found, a non-zero exit, a signal, the time limit — becomes a result that says so, never a crash: the
 * model hears it and may answer without the tool.
 */
import { spawn } from 'node:child_process';
import { Interrupted, UsageError } from '../contract/errors.js';

/** Most bytes of a command's stdout that become the result; the rest is cut with a note. */
export const TOOL_OUTPUT_LIMIT = 64 * 1024;
/** Most bytes of stderr quoted when a command fails. */
const STDERR_TAIL = 2 * 1024;
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
/** After the time limit, SIGTERM; this long later, SIGKILL. */
const KILL_GRACE_MS = 2_000;

/** execa's `parseCommandString`: split on runs of spaces, a backslash before a space joins the two tokens. */
export function splitCommand(command: string): string[] {
  const tokens: string[] = [];
  for (const token of command.trim().split(/ +/)) {
    const previous = tokens.at(-1);
    if (previous?.endsWith('\\')) tokens[tokens.length - 1] = `${previous.slice(0, -1)} ${token}`;
    else tokens.push(token);
  }
  return tokens.filter((t) => t !== '');
}

/** `--run-tool` values → name → argv; every name must be one of the tools, and given once. */
export function parseRunTools(
  values: readonly string[],
  toolNames: readonly string[] | undefined,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const value of values) {
    const at = value.indexOf('=');
    const name = at === -1 ? '' : value.slice(0, at).trim();
    const argv = at === -1 ? [] : splitCommand(value.slice(at + 1));
    if (name === '' || argv.length === 0)
      throw new UsageError(`--run-tool takes NAME=COMMAND, got ${JSON.stringify(value)}`, {
        hint: 'e.g. --run-tool "get_weather=node weather.js"',
      });
    if (toolNames === undefined) throw new UsageError('--run-tool needs the tools it runs: give them with --tools');
    if (!toolNames.includes(name))
      throw new UsageError(`--run-tool ${name}: no tool of that name in --tools (${toolNames.join(', ')})`);
    if (out.has(name)) throw new UsageError(`--run-tool ${name} is given twice`);
    out.set(name, argv);
  }
  return out;
}

export interface ToolRun {
  /** What goes back to the model as the tool's result. */
  content: string;
  /** Whether the command ran to a zero exit. */
  ok: boolean;
}

/** Runs `argv` with `input` on stdin; never throws but for the user's interrupt. */
export function runToolCommand(
  argv: readonly string[],
  input: string,
  { timeoutMs, signal, cwd }: { timeoutMs: number; signal: AbortSignal; cwd: string },
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = argv as [string, ...string[]];
    const shown = argv.join(' ');
    const out: Buffer[] = [];
    let outBytes = 0;
    let truncated = false;
    let err = Buffer.alloc(0);
    let timedOut = false;
    let settled = false;
    const child = spawn(file, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: false, windowsHide: true });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS).unref();
    }, timeoutMs);
    const onAbort = () => child.kill('SIGTERM');
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (run: ToolRun | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (run instanceof Error) reject(run);
      else resolve(run);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (outBytes >= TOOL_OUTPUT_LIMIT) {
        truncated = true;
        return;
      }
      const room = TOOL_OUTPUT_LIMIT - outBytes;
      if (chunk.length > room) truncated = true;
      const kept = chunk.subarray(0, room);
      out.push(kept);
      outBytes += kept.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err = Buffer.concat([err, chunk]);
      if (err.length > STDERR_TAIL) err = err.subarray(err.length - STDERR_TAIL);
    });
    // A command that does not read its stdin closes it: that is its business, not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.on('error', (e: NodeJS.ErrnoException) => {
      const why = e.code === 'ENOENT' ? 'not found' : e.code === 'EACCES' ? 'not executable' : e.message;
      done({ content: `error: the tool command ${JSON.stringify(file)} could not run: ${why}`, ok: false });
    });
    child.on('close', (code, sig) => {
      if (signal.aborted) return done(new Interrupted());
      // Cut at a byte limit, the text may end inside a character: decoding drops the broken tail.
      let text = Buffer.concat(out)
        .toString('utf8')
        .replace(/\uFFFD+$/, '');
      if (truncated) text += `\n[output truncated at ${TOOL_OUTPUT_LIMIT} bytes]`;
      const stderr = err.toString('utf8').trim();
      const said = stderr === '' ? '' : `; its stderr: ${stderr}`;
      if (timedOut)
        return done({ content: `error: the tool command ${shown} timed out after ${timeoutMs} ms${said}`, ok: false });
      if (code !== 0) {
        const how = code === null ? `was killed by ${sig}` : `exited with code ${code}`;
        return done({ content: `error: the tool command ${shown} ${how}${said}${text ? `\n${text}` : ''}`, ok: false });
      }
      done({ content: text, ok: true });
    });
  });
}
