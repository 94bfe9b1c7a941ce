import { execa, type ResultPromise } from 'execa';
import { BIN } from './run-cli.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The screen without colours and cursor movement, for matching what a person would read. */
export function plainScreen(screen: string): string {
  // eslint-disable-next-line no-control-regex -- terminal escape sequences are what is being removed
  return screen.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
}

export interface TerminalSession {
  /** Types into the terminal (a line ends with "\r", as the Enter key sends it; Ctrl-C is "\u0003"). */
  type(keys: string): void;
  /** Resolves when the plain screen, from `from` on, matches; rejects after `timeoutMs` with the screen so far. */
  waitFor(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<number>;
  /** The plain screen so far. */
  screen(): string;
  /** The exit code once the program has ended. */
  exited(): Promise<number | undefined>;
}

/**
 * The built binary on a pseudo-terminal (util-linux `script`, as test/helpers/pty.ts) that a test types into:
 * `script` passes its stdin to the terminal, so keystrokes reach the program as a person's would — Ctrl-C too, as
 * a byte in raw mode or a signal in line mode. CI, TEXTGEN_* and colour variables of the test process are left out.
 */
export function startTerminalSession(args: string[], env: Record<string, string>): TerminalSession {
  const command = `stty cols 100 rows 30; ${['node', BIN, ...args].map(quote).join(' ')}`;
  const baseEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && k !== 'CI' && !k.startsWith('TEXTGEN_') && k !== 'NO_COLOR' && k !== 'FORCE_COLOR') baseEnv[k] = v;
  }
  const child: ResultPromise = execa('script', ['-qec', command, '/dev/null'], {
    env: { ...baseEnv, TERM: 'xterm-256color', ...env },
    extendEnv: false,
    reject: false,
    stdin: 'pipe',
    timeout: 30_000,
    buffer: false,
  });
  let raw = '';
  const waiters = new Set<() => void>();
  child.stdout?.on('data', (b: Buffer) => {
    raw += b.toString('utf8');
    for (const w of [...waiters]) w();
  });
  return {
    type: (keys) => {
      child.stdin?.write(keys);
    },
    screen: () => plainScreen(raw),
    waitFor: (pattern, options = {}) =>
      new Promise<number>((resolve, reject) => {
        const from = options.from ?? 0;
        const check = () => {
          const text = plainScreen(raw).slice(from);
          const m = pattern.exec(text);
          if (!m) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(from + m.index + m[0].length);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the terminal never showed ${pattern}; it shows:\n${plainScreen(raw)}`));
        }, options.timeoutMs ?? 15_000);
        waiters.add(check);
        check();
      }),
    exited: async () => {
      child.stdin?.end();
      const r = await child;
      return r.exitCode;
    },
  };
}
