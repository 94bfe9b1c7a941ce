import { spawn } from 'node:child_process';
import { BIN } from './run-cli.js';

/**
 * The one way tests run the built binary under a pseudo-terminal (util-linux `script`), so stdin, stdout and stderr
 * are TTYs as for a person at a shell, with a sized window (a bare pty reports no width). `script` merges the
 * streams into one screen. CI, TEXTGEN_*, colour and editor variables of the test process are left out; `env` adds
 * the test's own.
 *
 * With `steps`, the run is a conversation: each step's keys are typed once its text is on the screen (after the
 * previous step's), so a test waits for the question, never for a fixed time.
 */
export interface TerminalStep {
  /** Text that shows the question is waiting (matched on the screen without escape sequences). */
  waitFor: string | RegExp;
  keys: string;
}

export interface TerminalOptions {
  steps?: TerminalStep[];
  cols?: number;
  rows?: number;
  /** A run that has not ended by then is killed and the call fails: nothing may hang on a terminal. */
  timeoutMs?: number;
}

export interface TerminalRun {
  exitCode: number | undefined;
  /** Everything the terminal showed, escape sequences included. */
  screen: string;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The screen as text: colour and cursor escape sequences removed. */
export const stripEscapes = (s: string) => s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

const LEFT_OUT = new Set(['CI', 'NO_COLOR', 'FORCE_COLOR', 'EDITOR', 'VISUAL']);

export function runOnTerminal(
  args: string[],
  env: Record<string, string>,
  options: TerminalOptions = {},
): Promise<TerminalRun> {
  const { steps = [], cols = 100, rows = 30, timeoutMs = 20_000 } = options;
  const command = `stty cols ${cols} rows ${rows}; ${['node', BIN, ...args].map(quote).join(' ')}`;
  const baseEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !LEFT_OUT.has(k) && !k.startsWith('TEXTGEN_')) baseEnv[k] = v;
  }
  // -f flushes what the program writes at once, so a question is on the screen when it is asked.
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...baseEnv, TERM: 'xterm-256color', ...env },
    stdio: [steps.length > 0 ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let screen = '';
  let next = 0;
  let seenUpTo = 0;
  // stdout is a pipe (stdio above), so it is there; the type of a computed stdio cannot say so.
  child.stdout!.on('data', (b: Buffer) => {
    screen += b.toString('utf8');
    const step = steps[next];
    if (step === undefined) return;
    const rest = stripEscapes(screen).slice(seenUpTo);
    const found = typeof step.waitFor === 'string' ? rest.indexOf(step.waitFor) : rest.search(step.waitFor);
    if (found >= 0) {
      seenUpTo += found + 1;
      next += 1;
      child.stdin?.write(step.keys);
    }
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `textgen ${args.join(' ')} hung on a terminal (step ${next + 1} of ${steps.length}); screen:\n${stripEscapes(screen)}`,
        ),
      );
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code ?? undefined, screen });
    });
  });
}
